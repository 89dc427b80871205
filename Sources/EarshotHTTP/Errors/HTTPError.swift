/// An error a handler throws to answer with a JSON error body: `{"error":{"code":"…","message":"…"}}`.
///
/// `code` is the stable wire code clients switch on (`NOT_FOUND`, `INVALID_ARGUMENT`…); `message` is for humans and
/// should say what was wrong and how to fix it. The server adds `request_id` to the body and `X-Request-Id` to the
/// headers. Any other error a handler throws becomes a 500 `INTERNAL` (logged once with the request id) unless it
/// conforms to ``HTTPErrorConvertible`` or ``HTTPServer/Configuration/errorMapper`` maps it.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    /// The response status.
    public var status: HTTPStatus
    /// The stable wire code, e.g. `NOT_FOUND`.
    public var code: String
    /// A human-readable explanation.
    public var message: String
    /// Extra response headers (`Allow`, `WWW-Authenticate`, `Retry-After`…).
    public var headers: HTTPHeaders

    public init(_ status: HTTPStatus, code: String, message: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    /// 400 `INVALID_ARGUMENT`: the request is malformed (bad JSON, missing field, bad parameter).
    public static func invalidArgument(_ message: String) -> HTTPError {
        HTTPError(.badRequest, code: "INVALID_ARGUMENT", message: message)
    }

    /// 401 `UNAUTHORIZED`.
    public static func unauthorized(_ message: String) -> HTTPError {
        HTTPError(.unauthorized, code: "UNAUTHORIZED", message: message)
    }

    /// 403 `FORBIDDEN`.
    public static func forbidden(_ message: String) -> HTTPError {
        HTTPError(.forbidden, code: "FORBIDDEN", message: message)
    }

    /// 404 `NOT_FOUND`.
    public static func notFound(_ message: String) -> HTTPError {
        HTTPError(.notFound, code: "NOT_FOUND", message: message)
    }

    /// 405 `METHOD_NOT_ALLOWED` with an `Allow` header listing `allowed`.
    public static func methodNotAllowed(_ method: HTTPMethod, path: String, allowed: [HTTPMethod]) -> HTTPError {
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        return HTTPError(
            .methodNotAllowed, code: "METHOD_NOT_ALLOWED",
            message: "\(method.rawValue) is not supported on \(path); use one of: \(list)", headers: ["Allow": list])
    }

    /// 409 `CONFLICT`.
    public static func conflict(_ message: String) -> HTTPError {
        HTTPError(.conflict, code: "CONFLICT", message: message)
    }

    /// 413 `PAYLOAD_TOO_LARGE` for a body over `limit` bytes.
    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(
            .contentTooLarge, code: "PAYLOAD_TOO_LARGE",
            message: "request body exceeds the limit of \(limit) bytes for this route")
    }

    /// 500 `INTERNAL`: an unexpected failure; the message points at the request id for the logs.
    public static func `internal`(requestID: String) -> HTTPError {
        HTTPError(
            .internalServerError, code: "INTERNAL",
            message: "internal error; quote request id \(requestID) when reporting it")
    }

    /// 503 `UNAVAILABLE`: the server is shutting down or overloaded.
    public static func unavailable(_ message: String) -> HTTPError {
        HTTPError(.serviceUnavailable, code: "UNAVAILABLE", message: message)
    }
}

/// A domain error that knows its HTTP rendering. Throw it from a handler and the server answers with ``httpError``.
public protocol HTTPErrorConvertible: Error {
    /// The status, wire code and message to answer with.
    var httpError: HTTPError { get }
}
