import Synchronization

/// A request handler: gets the request and its context, returns a response or throws (see ``HTTPError``).
public typealias Handler = @Sendable (Request, RequestContext) async throws -> Response

/// A check of a request's head — method, path, parameters, query and headers; its body is empty — that runs
/// before any body byte is accepted: throw (an ``HTTPError``, or an error the server's mapper knows) to refuse the
/// request. The connection waits meanwhile, so nothing of the body is read or spooled for a refused request, and
/// an `Expect: 100-continue` client gets the refusal instead of the go-ahead. Use it where the URL or headers are
/// the credential (signed upload URLs).
public typealias HeadCheck = @Sendable (Request, RequestContext) async throws -> Void

/// The routing table: patterns with path parameters, matched by method.
///
/// ```swift
/// let router = Router()
/// router.get("/healthz") { _, _ in .text("ok") }
/// let api = router.group("/developer/api")
/// api.get("/records/{id}") { request, context in
///     try .json(try store.record(context.parameters.require("id")))
/// }
/// ```
///
/// Handlers are `async` and run as Swift tasks. Cheap synchronous handlers (health, metrics, small JSON) can be
/// registered through ``RouteBuilder/inline`` instead: they run directly on the libmicrohttpd worker thread, which
/// saves the suspend/resume round trip (see ``InlineRoutes``).
///
/// Precedence: a literal segment beats `{parameter}`, which beats a trailing `*`; the most specific matching pattern
/// alone serves a path. Unknown paths answer 404 `NOT_FOUND`; a known path with another method answers 405
/// `METHOD_NOT_ALLOWED` with `Allow` listing that pattern's methods. `HEAD` falls back
/// to the `GET` handler (libmicrohttpd drops the body). Trailing and doubled slashes are ignored.
///
/// Register every route before handing the router to ``HTTPServer``: the server takes a snapshot when it is
/// created. Registering the same method and pattern twice is a programming error (trap).
public final class Router: RouteBuilder, Sendable {
    private let table = Mutex(RouteTable())

    public init() {}

    public func on(
        _ method: HTTPMethod, _ path: String, body: BodyMode, check: HeadCheck?, use handler: @escaping Handler
    ) {
        add(Route(method: method, pattern: PathPattern(path), body: body, handler: .async(handler), check: check))
    }

    /// Routes whose synchronous handlers run on the libmicrohttpd worker thread.
    public var inline: InlineRoutes {
        InlineRoutes(router: self, prefix: "")
    }

    func add(_ route: Route) {
        table.withLock { $0.insert(route) }
    }

    /// Routes under `prefix` (e.g. `/developer/api`).
    public func group(_ prefix: String) -> RouteGroup {
        RouteGroup(router: self, prefix: prefix)
    }

    /// Every registered route as (method, pattern), sorted by pattern: for route listings and API-contract tests.
    public var routes: [(method: HTTPMethod, pattern: String)] {
        table.withLock { table in
            table.entries.flatMap { entry in
                entry.routes.keys.sorted().map { (method: $0, pattern: entry.pattern.description) }
            }
        }
    }

    func snapshot() -> RouteTable {
        table.withLock { $0.indexed() }
    }
}

/// A set of routes sharing a path prefix. Groups nest: `router.group("/v1").group("/admin")`.
public struct RouteGroup: RouteBuilder, Sendable {
    let router: Router
    /// The prefix prepended to every pattern registered through this group.
    public let prefix: String

    public func on(
        _ method: HTTPMethod, _ path: String, body: BodyMode, check: HeadCheck?, use handler: @escaping Handler
    ) {
        router.on(method, PathPattern.joined(prefix, path), body: body, check: check, use: handler)
    }

    /// A nested group.
    public func group(_ prefix: String) -> RouteGroup {
        RouteGroup(router: router, prefix: PathPattern.joined(self.prefix, prefix))
    }

    /// Routes under this group's prefix whose synchronous handlers run on the libmicrohttpd worker thread.
    public var inline: InlineRoutes {
        InlineRoutes(router: router, prefix: prefix)
    }
}

/// Something routes can be registered on (``Router`` or ``RouteGroup``).
public protocol RouteBuilder {
    /// Registers `handler` for `method` on `path`, receiving the body as `body` says, after `check` (if any)
    /// accepted the request's head.
    func on(_ method: HTTPMethod, _ path: String, body: BodyMode, check: HeadCheck?, use handler: @escaping Handler)

    /// The same routes, registered with synchronous handlers that run on the libmicrohttpd worker thread.
    var inline: InlineRoutes { get }
}

extension RouteBuilder {
    /// Registers `handler` for `method` on `path`, receiving the body as `body` says.
    public func on(_ method: HTTPMethod, _ path: String, body: BodyMode, use handler: @escaping Handler) {
        on(method, path, body: body, check: nil, use: handler)
    }

    public func get(_ path: String, body: BodyMode = .buffered(), use handler: @escaping Handler) {
        on(.get, path, body: body, use: handler)
    }
    public func head(_ path: String, body: BodyMode = .buffered(), use handler: @escaping Handler) {
        on(.head, path, body: body, use: handler)
    }
    public func post(_ path: String, body: BodyMode = .buffered(), use handler: @escaping Handler) {
        on(.post, path, body: body, use: handler)
    }
    public func put(_ path: String, body: BodyMode = .buffered(), use handler: @escaping Handler) {
        on(.put, path, body: body, use: handler)
    }
    public func delete(_ path: String, body: BodyMode = .buffered(), use handler: @escaping Handler) {
        on(.delete, path, body: body, use: handler)
    }
    public func patch(_ path: String, body: BodyMode = .buffered(), use handler: @escaping Handler) {
        on(.patch, path, body: body, use: handler)
    }
}

/// One registered handler.
struct Route: Sendable {
    let method: HTTPMethod
    let pattern: PathPattern
    let body: BodyMode
    let handler: RouteHandler
    /// `pattern.description`, computed once: every request's log line and metrics use it.
    let label: String
    /// Runs on the head before the body is accepted (async routes only).
    let check: HeadCheck?

    init(method: HTTPMethod, pattern: PathPattern, body: BodyMode, handler: RouteHandler, check: HeadCheck? = nil) {
        self.method = method
        self.pattern = pattern
        self.body = body
        self.handler = handler
        self.label = pattern.description
        self.check = check
    }
}

/// Where a route's handler runs.
enum RouteHandler: Sendable {
    /// A Swift task on the global executor; the connection is suspended meanwhile.
    case async(Handler)
    /// Directly on the libmicrohttpd worker thread, before the worker moves on.
    case inline(InlineHandler)
    /// The attempt on the worker thread; when it returns nil, the handler as a Swift task.
    case inlineFirst(InlineAttempt, Handler)
}

/// The immutable snapshot the server matches against.
struct RouteTable: Sendable {
    struct Entry: Sendable {
        let pattern: PathPattern
        var routes: [HTTPMethod: Route]
    }

    enum Match {
        case found(Route, Parameters)
        case methodNotAllowed([HTTPMethod])
        case notFound
    }

    private(set) var entries: [Entry] = []
    /// The entries a path can match, in `entries`' order, by its first segment: those whose pattern begins with that
    /// literal and those that begin with a parameter or `*` (``otherCandidates``: any other first segment, or none).
    /// A request looks at a few patterns rather than at every route. Built once, by ``indexed()``.
    private var candidatesByFirst: [Substring: [Int]] = [:]
    private var otherCandidates: [Int] = []
    private var isIndexed = false

    mutating func insert(_ route: Route) {
        if let index = entries.firstIndex(where: { $0.pattern == route.pattern }) {
            precondition(
                entries[index].routes[route.method] == nil,
                "route \(route.method) \(route.pattern) is registered twice")
            entries[index].routes[route.method] = route
            return
        }
        entries.append(Entry(pattern: route.pattern, routes: [route.method: route]))
        entries.sort { $0.pattern.rank.lexicographicallyPrecedes($1.pattern.rank) }
        isIndexed = false
    }

    /// The table as requests are matched against it: with its index by first segment, built once when the server
    /// takes its snapshot rather than at every registration.
    func indexed() -> RouteTable {
        var table = self
        (table.candidatesByFirst, table.otherCandidates) = ([:], [])
        for (index, entry) in entries.enumerated() {
            if case .literal(let first) = entry.pattern.segments.first {
                table.candidatesByFirst[Substring(first), default: []].append(index)
            } else {
                table.otherCandidates.append(index)
            }
        }
        for (first, indexes) in table.candidatesByFirst {
            table.candidatesByFirst[first] = (indexes + table.otherCandidates).sorted()
        }
        table.isIndexed = true
        return table
    }

    /// The most specific pattern that matches `path` names the resource; its methods are the only ones served
    /// there (a less specific pattern never answers for it: `DELETE /uploads/complete` is 405 with `Allow: POST`
    /// when `/uploads/complete` is a literal route, not a `DELETE /uploads/{id}` with id `complete`).
    func match(method: HTTPMethod, path: String) -> Match {
        precondition(isIndexed, "match against Router.snapshot(), which indexes the table")
        let parts = PathPattern.segments(of: path)
        let candidates = parts.first.flatMap { candidatesByFirst[$0] } ?? otherCandidates
        let first = candidates.lazy.compactMap { index in
            self.entries[index].pattern.match(parts).map { (self.entries[index], $0) }
        }.first
        guard let (entry, captured) = first else { return .notFound }
        if let route = entry.routes[method] ?? (method == .head ? entry.routes[.get] : nil) {
            return .found(route, Parameters(captured))
        }
        var allowed = Set(entry.routes.keys)
        if entry.routes[.get] != nil { allowed.insert(.head) }
        return .methodNotAllowed(allowed.sorted())
    }
}
