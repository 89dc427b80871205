public import EarshotCore
import Synchronization

/// An HTTP/1.1 server over libmicrohttpd running the handlers of a ``Router``.
///
/// ```swift
/// let server = HTTPServer(router: router, configuration: .init(port: 8080))
/// try await server.run()          // serves until the task is cancelled, then drains
/// ```
///
/// ``run()`` binds, serves, and on cancellation (or ``shutdown()``) shuts down gracefully: it stops accepting
/// connections, lets in-flight requests finish for up to ``Configuration/shutdownGracePeriod``, then cancels
/// the remaining handlers, answers their requests 503 and stops. To stop on SIGTERM/SIGINT, cancel the task
/// running `run()` from the executable's signal handler.
///
/// Handlers registered with `router.get { … }` (and the other verbs) run as child tasks of ``run()``; cheap
/// synchronous handlers registered through ``RouteBuilder/inline`` run on the libmicrohttpd worker thread instead
/// (see ``InlineRoutes``).
///
/// Each request gets a request id (`X-Request-Id` on every response), one access-log line (label `http`) and an
/// observation in ``metrics``. Handlers (async or inline) run inside a ``LogContext`` holding `request_id`, so every
/// line logged while serving the request, by any ``Logger``, carries that id; child tasks of the handler inherit it,
/// `Task.detached` does not.
public final class HTTPServer: Sendable {
    /// The options this server was created with.
    public let configuration: Configuration
    /// Request counters and latency histograms (render them at `/metrics`).
    public let metrics: HTTPMetrics
    private let routes: RouteTable
    private let logger: Logger
    private let state = Mutex(Lifecycle())

    private struct Lifecycle {
        enum Phase {
            case idle, starting, listening(Int), stopped, failed(any Error)
        }
        var phase = Phase.idle
        var listeners: [CheckedContinuation<Int, any Error>] = []
        var shutdownRequested = false
        var shutdownWaiter: CheckedContinuation<Void, Never>?
    }

    /// Creates a server for a snapshot of `router` (routes added to it later are not served).
    public init(
        router: Router, configuration: Configuration = Configuration(), metrics: HTTPMetrics = HTTPMetrics(),
        logger: Logger = Logger(label: "http")
    ) {
        self.routes = router.snapshot()
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
    }

    /// The bound port while listening, else nil.
    public var port: Int? {
        state.withLock {
            if case .listening(let port) = $0.phase { return port }
            return nil
        }
    }

    /// Waits until ``run()`` is listening and returns the bound port (useful with port 0).
    ///
    /// Throws the start error if binding failed, or ``HTTPServerError/Code/startFailed`` if the server already
    /// stopped.
    public func waitUntilListening() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let result: Result<Int, any Error>? = state.withLock { state in
                switch state.phase {
                case .listening(let port): return .success(port)
                case .failed(let error): return .failure(error)
                case .stopped: return .failure(HTTPServerError(.startFailed, "the server has stopped"))
                case .idle, .starting:
                    state.listeners.append(continuation)
                    return nil
                }
            }
            if let result { continuation.resume(with: result) }
        }
    }

    /// Starts a graceful shutdown, exactly as cancelling the task running ``run()`` does.
    public func shutdown() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.shutdownRequested = true
            defer { state.shutdownWaiter = nil }
            return state.shutdownWaiter
        }
        waiter?.resume()
    }

    /// Binds and serves until the calling task is cancelled or ``shutdown()`` is called, then shuts down
    /// gracefully and returns once every handler has finished.
    ///
    /// Handlers run as child tasks of a task group owned by this call. Cancelling `run()` does not cancel them
    /// during the grace period (they finish their requests); only when the grace period ends are they cancelled.
    /// Throws ``HTTPServerError`` when the address cannot be bound or the configuration is invalid; may be called
    /// once per server.
    public func run() async throws {
        try state.withLock { state throws(HTTPServerError) in
            guard case .idle = state.phase else {
                throw HTTPServerError(.alreadyStarted, "run() may be called once per HTTPServer")
            }
            state.phase = .starting
        }
        let (jobs, continuation) = AsyncStream.makeStream(of: Job.self)
        let core = ServerCore(
            routes: routes, configuration: configuration, metrics: metrics, logger: logger, jobs: continuation)
        let daemon: Daemon
        do {
            daemon = try Daemon.start(core: core)
        } catch {
            continuation.finish()
            let listeners = state.withLock { state in
                state.phase = .failed(error)
                defer { state.listeners = [] }
                return state.listeners
            }
            for listener in listeners { listener.resume(throwing: error) }
            throw error
        }
        let listeners = state.withLock { state in
            state.phase = .listening(daemon.port)
            defer { state.listeners = [] }
            return state.listeners
        }
        logger.notice("listening", metadata: ["address": "\(configuration.host):\(daemon.port)"])
        for listener in listeners { listener.resume(returning: daemon.port) }

        // The handler group lives in a task that this function always awaits (it is joined, not detached), so that
        // cancelling run() does not cancel in-flight handlers: structured children would inherit the cancellation.
        let serving = Task {
            await withDiscardingTaskGroup { group in
                for await job in jobs {
                    group.addTask { await core.execute(job) }
                }
            }
        }

        await waitForShutdownRequest()
        let inFlight = core.inFlight
        logger.notice(
            "shutting down: no new connections, draining in-flight requests",
            metadata: [
                "in_flight": String(inFlight), "grace_ms": String(configuration.shutdownGracePeriod.milliseconds),
            ])
        core.beginDraining()
        daemon.quiesce()
        let deadline = ContinuousClock.now + configuration.shutdownGracePeriod
        // A fresh task: the wait must not observe run()'s own cancellation.
        let drained = await Task { await core.waitUntilIdle(deadline: deadline) }.value
        if !drained {
            logger.warning(
                "grace period over: cancelling remaining handlers", metadata: ["in_flight": String(core.inFlight)])
            serving.cancel()
        }
        // libmicrohttpd aborts the process if it is stopped with a connection suspended, and a kept-alive connection
        // can bring a new request at any moment until then, even once the server was found idle. From here on no
        // connection is suspended: new requests are answered 503 at once and suspended ones are resumed with a 503.
        core.abandonAll()
        if !drained {
            // Resumed connections would be closed by the stop anyway; this lets their 503s reach the clients.
            _ = await Task { await core.waitUntilIdle(deadline: .now + .seconds(10)) }.value
        }
        daemon.stop()
        continuation.finish()
        await serving.value
        state.withLock { $0.phase = .stopped }
        logger.notice("stopped")
    }

    private func waitForShutdownRequest() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now: Bool = state.withLock { state in
                    if state.shutdownRequested || Task.isCancelled { return true }
                    state.shutdownWaiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            shutdown()
        }
    }
}
