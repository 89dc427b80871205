/// A synchronous handler run on the libmicrohttpd worker thread (see ``InlineRoutes``).
public typealias InlineHandler = @Sendable (Request, RequestContext) throws -> Response

/// A synchronous first attempt at a request, run on the libmicrohttpd worker thread: a response (or a thrown
/// error, answered like any handler's), or nil when answering would mean waiting — then the route's `async`
/// handler answers instead (see ``InlineRoutes/on(_:_:body:attempt:otherwise:)``).
public typealias InlineAttempt = @Sendable (Request, RequestContext) throws -> Response?

/// Registers routes whose handlers run synchronously on the libmicrohttpd worker thread that read the request.
///
/// ```swift
/// router.inline.get("/healthz") { _, _ in .text("ok") }
/// router.inline.get("/metrics") { _, _ in .text(metrics.render(), contentType: "text/plain; version=0.0.4") }
/// ```
///
/// An inline handler answers without the round trip an `async` handler needs (suspend the connection, start a
/// task, resume the connection, wake the worker), which roughly halves the cost of a tiny request. Everything else
/// is identical: routing, body limits, request ids, thrown errors (mapped by the same rules), the access-log line
/// and metrics.
///
/// Use it only for handlers that are cheap and never block — no disk or network waits, no locks held by slow code:
/// while the handler runs, its worker thread serves no other connection (there are
/// ``HTTPServer/Configuration/threadPoolSize`` of them). Inline handlers accept ``BodyMode/buffered(limit:)`` and
/// ``BodyMode/file(limit:directory:)`` bodies; a ``BodyMode/stream(limit:)`` body needs an `async` handler (trap).
public struct InlineRoutes: Sendable {
    let router: Router
    /// The prefix prepended to every pattern registered here.
    public let prefix: String

    /// Registers `handler` for `method` on `path`, receiving the body as `body` says.
    public func on(_ method: HTTPMethod, _ path: String, body: BodyMode, use handler: @escaping InlineHandler) {
        if case .stream = body.kind {
            preconditionFailure("route \(method) \(path): a streamed body needs an async handler, not an inline one")
        }
        let pattern = PathPattern(prefix.isEmpty ? path : PathPattern.joined(prefix, path))
        router.add(Route(method: method, pattern: pattern, body: body, handler: .inline(handler)))
    }

    /// Registers a route answered on the worker thread when it can be: `attempt` runs there and returns the
    /// response, or nil when it cannot answer without waiting (an embedded store with no idle connection, a remote
    /// one, a cold cache); `handler` then answers as an ordinary `async` handler. The two must give the same answer
    /// to the same request. Use it for hot reads whose common case is a few microseconds of work (task status);
    /// `attempt` follows the rules of an inline handler, and `body` may not be a stream.
    public func on(
        _ method: HTTPMethod, _ path: String, body: BodyMode = .buffered(), attempt: @escaping InlineAttempt,
        otherwise handler: @escaping Handler
    ) {
        if case .stream = body.kind {
            preconditionFailure("route \(method) \(path): a streamed body needs an async handler, not an inline one")
        }
        let pattern = PathPattern(prefix.isEmpty ? path : PathPattern.joined(prefix, path))
        router.add(Route(method: method, pattern: pattern, body: body, handler: .inlineFirst(attempt, handler)))
    }

    public func get(_ path: String, body: BodyMode = .buffered(), use handler: @escaping InlineHandler) {
        on(.get, path, body: body, use: handler)
    }
    public func head(_ path: String, body: BodyMode = .buffered(), use handler: @escaping InlineHandler) {
        on(.head, path, body: body, use: handler)
    }
    public func post(_ path: String, body: BodyMode = .buffered(), use handler: @escaping InlineHandler) {
        on(.post, path, body: body, use: handler)
    }
    public func put(_ path: String, body: BodyMode = .buffered(), use handler: @escaping InlineHandler) {
        on(.put, path, body: body, use: handler)
    }
    public func delete(_ path: String, body: BodyMode = .buffered(), use handler: @escaping InlineHandler) {
        on(.delete, path, body: body, use: handler)
    }
    public func patch(_ path: String, body: BodyMode = .buffered(), use handler: @escaping InlineHandler) {
        on(.patch, path, body: body, use: handler)
    }
}
