import Foundation

/// What a handler answers: status, headers and a body (bytes, a file served with sendfile, or nothing).
///
/// `Content-Length` is computed by the server; do not set it. `X-Request-Id` is added to every response.
public struct Response: Sendable {
    /// The body of a response.
    public enum Body: Sendable {
        /// No body (`Content-Length: 0`).
        case empty
        /// An in-memory body, copied once into libmicrohttpd.
        case bytes([UInt8])
        /// An open file served with `sendfile(2)`, honouring `Range`, `If-None-Match` and `If-Modified-Since`.
        case file(FileBody)
        /// Bytes produced while they are sent (chunked), by an async handler only (see ``ResponseStream``).
        case stream(ResponseStream)
        /// A switch to WebSocket (status 101), made by ``Response/webSocket(for:subprotocol:configuration:_:)``; by
        /// an async handler only.
        case webSocket(WebSocketUpgrade)
    }

    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: Body

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// An empty response (`204 No Content` by default).
    public static func empty(status: HTTPStatus = .noContent, headers: HTTPHeaders = [:]) -> Response {
        Response(status: status, headers: headers, body: .empty)
    }

    /// Raw bytes with a content type.
    public static func bytes(
        _ bytes: [UInt8], contentType: String = "application/octet-stream", status: HTTPStatus = .ok
    ) -> Response {
        Response(status: status, headers: ["Content-Type": contentType], body: .bytes(bytes))
    }

    /// UTF-8 text (`text/plain; charset=utf-8` unless told otherwise).
    public static func text(
        _ text: String, status: HTTPStatus = .ok, contentType: String = "text/plain; charset=utf-8"
    ) -> Response {
        Response(status: status, headers: ["Content-Type": contentType], body: .bytes(Array(text.utf8)))
    }

    /// A body of Server-Sent Events (`text/event-stream`, not cached) that `produce` writes as they happen.
    public static func events(
        status: HTTPStatus = .ok, headers: HTTPHeaders = [:], _ produce: @escaping @Sendable (ResponseWriter) async throws -> Void
    ) -> Response {
        var headers = headers
        headers["Content-Type"] = "text/event-stream"
        headers["Cache-Control"] = "no-cache"
        return Response(status: status, headers: headers, body: .stream(ResponseStream(produce)))
    }

    /// A JSON body encoded with `JSONEncoder` (sorted keys, `.withoutEscapingSlashes`, ISO-8601 dates).
    ///
    /// Throws `EncodingError` only for values JSON cannot represent (a non-finite `Double`); the server turns that
    /// into a 500.
    public static func json(
        _ value: some Encodable, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]
    ) throws -> Response {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return Response(status: status, headers: headers, body: .bytes(Array(try JSONCoding.encoder.encode(value))))
    }

    /// A JSON response whose body is already encoded (with ``jsonBody(_:)``, e.g. kept from an earlier request).
    public static func json(encoded bytes: [UInt8], status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> Response {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return Response(status: status, headers: headers, body: .bytes(bytes))
    }

    /// `value` encoded exactly as ``json(_:status:headers:)`` encodes it.
    public static func jsonBody(_ value: some Encodable) throws -> [UInt8] {
        Array(try JSONCoding.encoder.encode(value))
    }

    /// The JSON error response for `error`, with `request_id` in the body and `X-Request-Id` in the headers.
    public static func error(_ error: HTTPError, requestID: String) -> Response {
        var headers = error.headers
        headers["Content-Type"] = "application/json"
        headers["X-Request-Id"] = requestID
        let body = ErrorBody(error: .init(code: error.code, message: error.message, requestID: requestID))
        // Encoding three strings cannot fail.
        let bytes = (try? JSONCoding.encoder.encode(body)).map(Array.init) ?? []
        return Response(status: error.status, headers: headers, body: .bytes(bytes))
    }

    /// The number of body bytes when known in advance (not for files, whose size depends on `Range`).
    var byteCount: Int {
        switch body {
        case .empty: 0
        case .bytes(let bytes): bytes.count
        case .file(let file): Int(file.size)
        case .stream, .webSocket: 0
        }
    }
}

/// The wire shape of every error body.
struct ErrorBody: Codable {
    struct Detail: Codable {
        var code: String
        var message: String
        var requestID: String

        enum CodingKeys: String, CodingKey {
            case code, message
            case requestID = "request_id"
        }
    }
    var error: Detail
}

/// Shared JSON settings for request and response bodies. Keys are sorted: JSONEncoder's keyed containers are
/// unordered (hash order, which differs between two encodings of the same value), and equal answers must be
/// byte-identical (an error for another tenant's id and for a missing one, a replayed request).
enum JSONCoding {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
