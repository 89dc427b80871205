public import EarshotCore

/// What the client sent: method, path, query, headers, peer address and the body in the route's ``BodyMode``.
public struct Request: Sendable {
    /// The request method.
    public let method: HTTPMethod
    /// The percent-decoded path without the query string, e.g. `/records/rec_1`.
    public let path: String
    /// Percent-decoded query parameters (`+` decodes to a space).
    public let query: QueryParameters
    /// Request headers (case-insensitive lookup).
    public let headers: HTTPHeaders
    /// The peer's IP address as text (`127.0.0.1`, `::1`), or empty when unknown.
    public let remoteAddress: String
    /// The body, in the form the route asked for.
    public let body: RequestBody

    public init(
        method: HTTPMethod, path: String, query: QueryParameters = QueryParameters(), headers: HTTPHeaders = [:],
        remoteAddress: String = "", body: RequestBody = .none
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.remoteAddress = remoteAddress
        self.body = body
    }

    /// The buffered body bytes (empty unless the route uses ``BodyMode/buffered(limit:)``).
    public var bytes: [UInt8] {
        if case .bytes(let bytes) = body { return bytes }
        return []
    }
}

/// The body of a request, as chosen by the route's ``BodyMode``.
public enum RequestBody: Sendable {
    /// No body was read.
    case none
    /// The whole body in memory (``BodyMode/buffered(limit:)``).
    case bytes([UInt8])
    /// The body as it arrives (``BodyMode/stream(limit:)``).
    case stream(BodyStream)
    /// The body already written to a file with its digests (``BodyMode/file(limit:directory:)``).
    case file(UploadedFile)
}

/// Percent-decoded query parameters in the order they appeared.
public struct QueryParameters: Sendable, Sequence {
    /// One `name=value` pair; a bare `name` has an empty value.
    public typealias Item = (name: String, value: String)

    private let items: [Item]

    public init(_ items: [Item] = []) {
        self.items = items
    }

    /// The first value for `name`.
    public subscript(name: String) -> String? {
        items.first { $0.name == name }?.value
    }

    /// Every value for `name` (`?tag=a&tag=b`).
    public func values(for name: String) -> [String] {
        items.filter { $0.name == name }.map(\.value)
    }

    /// The first value for `name` converted with `T(String)`; throws 400 `INVALID_ARGUMENT` when it does not parse.
    public func get<T: LosslessStringConvertible>(_ name: String, as type: T.Type = T.self) throws(HTTPError) -> T? {
        guard let raw = self[name] else { return nil }
        guard let value = T(raw) else {
            throw HTTPError.invalidArgument("query parameter `\(name)` has invalid value `\(raw)` for \(T.self)")
        }
        return value
    }

    public func makeIterator() -> IndexingIterator<[Item]> {
        items.makeIterator()
    }
}

/// What the server knows about a request: its id, the matched route and its parameters, a logger.
public struct RequestContext: Sendable {
    /// The request id, echoed as `X-Request-Id` (the client's own when sane, else `req_…`).
    public let requestID: String
    /// The matched route pattern, e.g. `/records/{id}` (use it for metrics labels, never the raw path).
    public let route: String
    /// Path parameters by name.
    public let parameters: Parameters
    /// A logger labelled `http` carrying `request_id`. Any logger writes `request_id` while the handler runs (the
    /// server binds it as the ``LogContext`` of the handler and of its child tasks); this one also keeps it in a
    /// `Task.detached`.
    public let logger: Logger

    public init(requestID: String, route: String, parameters: Parameters = Parameters(), logger: Logger) {
        self.requestID = requestID
        self.route = route
        self.parameters = parameters
        self.logger = logger
    }
}

/// Path parameters captured by `{name}` segments (and the `*` tail as ``catchAll``).
public struct Parameters: Sendable {
    private let values: [(String, String)]

    public init(_ values: [(String, String)] = []) {
        self.values = values
    }

    /// The value of `{name}`, percent-decoded.
    public subscript(name: String) -> String? {
        values.first { $0.0 == name }?.1
    }

    /// The value of `{name}`; throws 400 `INVALID_ARGUMENT` when absent (a route/handler mismatch).
    public func require(_ name: String) throws(HTTPError) -> String {
        guard let value = self[name] else { throw HTTPError.invalidArgument("missing path parameter `\(name)`") }
        return value
    }

    /// The rest of the path matched by a trailing `*` segment, without a leading slash.
    public var catchAll: String? { self["*"] }
}
