internal import CMicroHTTPD
import EarshotCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the libmicrohttpd callbacks need, shared between worker threads and ``HTTPServer/run()``.
final class ServerCore: Sendable {
    let routes: RouteTable
    let configuration: HTTPServer.Configuration
    let metrics: HTTPMetrics
    let logger: Logger
    private let jobs: AsyncStream<Job>.Continuation
    let requestIDs = RequestIDGenerator()
    /// Exchanges handed to async handlers (the only ones that can be suspended), for ``abandonAll()``.
    private let live = Mutex<[ObjectIdentifier: Exchange]>([:])
    private let inFlightCount = Atomic<Int>(0)
    private let drainingFlag = Atomic<Bool>(false)
    private let forcingFlag = Atomic<Bool>(false)
    /// Upgraded connections until their socket is given back to libmicrohttpd (which must happen before it stops).
    private let webSockets = Mutex(WebSocketRegistry())

    struct WebSocketRegistry {
        var open: [ObjectIdentifier: WebSocketConnection] = [:]
        var draining = false
    }

    /// WebSocket connections whose socket libmicrohttpd has not got back yet.
    var openWebSockets: Int { webSockets.withLock { $0.open.count } }

    init(
        routes: RouteTable, configuration: HTTPServer.Configuration, metrics: HTTPMetrics, logger: Logger,
        jobs: AsyncStream<Job>.Continuation
    ) {
        self.routes = routes
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        self.jobs = jobs
    }

    /// Graceful shutdown has begun: responses carry `Connection: close`.
    var draining: Bool { drainingFlag.load(ordering: .relaxed) }
    /// The grace period is over: no connection may be suspended any more.
    var forcing: Bool { forcingFlag.load(ordering: .acquiring) }

    /// Requests between their headers and their completion callback.
    var inFlight: Int { inFlightCount.load(ordering: .acquiring) }

    /// Registers an exchange about to be handed to an async handler, until its completion callback.
    func track(_ exchange: Exchange) {
        live.withLock { $0[ObjectIdentifier(exchange)] = exchange }
    }

    /// Hands `job` to ``HTTPServer/run()``'s task group; false once the server stops (the request is answered 503
    /// and its handler never runs).
    func enqueue(_ job: Job) -> Bool {
        if forcing { return false }
        if case .enqueued = jobs.yield(job) { return true }
        return false
    }

    func finishJobs() {
        jobs.finish()
    }

    /// Shutdown has begun: new requests carry `Connection: close`, open WebSockets are closed with 1001.
    func beginDraining() {
        let sockets = webSockets.withLock { state in
            state.draining = true
            return Array(state.open.values)
        }
        drainingFlag.store(true, ordering: .relaxed)
        for socket in sockets { socket.close(.goingAway, reason: "the server is shutting down") }
    }

    /// Stops waiting for handlers: every suspended request is answered 503 and resumed, WebSockets are dropped, and
    /// from now on nothing suspends a connection (``forcing``), so the daemon can stop.
    func abandonAll() {
        forcingFlag.store(true, ordering: .releasing)
        for socket in webSockets.withLock({ Array($0.open.values) }) { socket.abort() }
        for exchange in live.withLock({ Array($0.values) }) {
            exchange.abandon()
        }
    }

    /// Waits (without observing the caller's cancellation) until no request is in flight or `deadline` passes.
    func waitUntilIdle(deadline: ContinuousClock.Instant) async -> Bool {
        while true {
            if inFlight == 0, openWebSockets == 0 { return true }
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: - Handler tasks

    /// Runs one handler as a child task of ``HTTPServer/run()``'s group, inside the request's ``LogContext``, and
    /// delivers its response.
    func execute(_ job: Job) async {
        switch job.work {
        case .check(let check):
            // A head check: the connection is suspended before its body; it resumes either way.
            let refusal: Response? = await LogContext.with(job.logContext) {
                do {
                    try await check(job.request, job.context)
                    return nil
                } catch {
                    return errorResponse(for: error, context: job.context)
                }
            }
            if let refusal { job.exchange.complete(refusal) } else { job.exchange.checkPassed() }
            return
        case .handle(let handler):
            await handle(job, handler)
        }
    }

    private func handle(_ job: Job, _ handler: Handler) async {
        let response: Response = await LogContext.with(job.logContext) {
            do {
                return try await handler(job.request, job.context)
            } catch {
                return errorResponse(for: error, context: job.context)
            }
        }
        if case .file(let upload) = job.request.body {
            unlink(upload.path)  // no-op when the handler moved the file into place
        }
        job.exchange.complete(response)
        if case .webSocket(let upgrade) = response.body {
            await serve(upgrade, job: job)
            return
        }
        if case .stream(let stream) = response.body {
            // Headers are on their way; the body is produced here, in the handler's task and log context.
            await LogContext.with(job.logContext) {
                do {
                    try await stream.produce(ResponseWriter(channel: stream.channel))
                    stream.channel.finish()
                } catch {
                    if !(error is CancellationError), (error as? HTTPError)?.code != StreamChannel.gone.code {
                        logger.warning(
                            "streamed response failed",
                            metadata: ["request_id": job.context.requestID, "error": "\(error)"])
                    }
                    stream.channel.fail()
                }
            }
        }
    }

    /// Runs an inline handler on the calling (worker) thread: same error mapping and upload clean-up as
    /// ``execute(_:)``. The caller binds the request's ``LogContext``.
    func execute(_ handler: InlineHandler, request: Request, context: RequestContext) -> Response {
        var response: Response
        do {
            response = try handler(request, context)
        } catch {
            response = errorResponse(for: error, context: context)
        }
        switch response.body {
        case .stream, .webSocket:
            logger.error("an inline handler answered with a stream or a WebSocket", metadata: ["route": context.route])
            response = errorResponse(for: HTTPError.internal(requestID: context.requestID), context: context)
        default: break
        }
        if case .file(let upload) = request.body {
            unlink(upload.path)  // no-op when the handler moved the file into place
        }
        return response
    }

    /// Runs an inline attempt on the calling (worker) thread: nil when it declined (the async handler answers
    /// then, with the request untouched), otherwise its response or error exactly as ``execute(_:request:context:)``.
    func attempt(_ attempt: InlineAttempt, request: Request, context: RequestContext) -> Response? {
        let answered: Response?
        do {
            answered = try attempt(request, context)
        } catch {
            answered = errorResponse(for: error, context: context)
        }
        guard let answered else { return nil }
        return execute({ _, _ in answered }, request: request, context: context)
    }

    func errorResponse(for error: any Error, context: RequestContext) -> Response {
        let httpError: HTTPError
        if let error = error as? HTTPError {
            httpError = error
        } else if let error = error as? any HTTPErrorConvertible {
            httpError = error.httpError
        } else if let mapped = configuration.errorMapper?(error) {
            httpError = mapped
        } else if error is CancellationError {
            httpError = .unavailable("the request was cancelled because the server is shutting down")
        } else {
            logger.error(
                "handler failed",
                metadata: ["request_id": context.requestID, "route": context.route, "error": "\(error)"])
            httpError = .internal(requestID: context.requestID)
        }
        return Response.error(httpError, requestID: context.requestID)
    }

    /// Runs a WebSocket session once libmicrohttpd hands over the socket, then closes the connection and waits
    /// until the socket is given back.
    private func serve(_ upgrade: WebSocketUpgrade, job: Job) async {
        guard let upgraded = await upgrade.handoff.upgraded() else { return }
        let connection = WebSocketConnection(
            socket: upgraded.socket, initial: upgraded.initial, configuration: upgrade.configuration,
            logger: logger.with(job.logContext))
        let draining = webSockets.withLock { state in
            state.open[ObjectIdentifier(connection)] = connection
            return state.draining
        }
        if draining { connection.close(.goingAway, reason: "the server is shutting down") }
        metrics.webSocketOpened()
        let socket = WebSocket(request: job.request, subprotocol: upgrade.subprotocol, connection: connection)
        await LogContext.with(job.logContext) {
            do {
                try await upgrade.session(socket)
                connection.close(.normal, reason: "")
            } catch is CancellationError {
                connection.close(.goingAway, reason: "the server is shutting down")
            } catch {
                logger.warning(
                    "websocket session failed", metadata: ["request_id": job.context.requestID, "error": "\(error)"])
                connection.close(.internalError, reason: "internal error; request id \(job.context.requestID)")
            }
        }
        await connection.waitUntilClosed()
        webSockets.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(connection)) }
        metrics.webSocketClosed(code: connection.closeCode ?? .abnormal)
        logger.info(
            "websocket closed",
            metadata: [
                "request_id": job.context.requestID, "route": job.context.route,
                "code": String((connection.closeCode ?? .abnormal).rawValue),
            ])
    }

    // MARK: - libmicrohttpd callbacks (worker threads)

    func handle(
        connection: OpaquePointer, url: String, method: String, data: UnsafePointer<CChar>?,
        size: UnsafeMutablePointer<Int>, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        // The URI guard leaves a marker instead of nil when it cut off a query with too many parameters.
        let queryRefused = slot.pointee == earshot_mhd_query_refused()
        if let raw = slot.pointee, !queryRefused {
            let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeUnretainedValue()
            if size.pointee > 0 {
                let keep = exchange.receive(UnsafeRawBufferPointer(start: data, count: size.pointee))
                size.pointee = 0
                return keep ? .YES : .NO
            }
            exchange.finish()
            return .YES
        }
        let exchange = Exchange(core: self, connection: connection, method: method, path: url)
        exchange.queryRefused = queryRefused
        slot.pointee = Unmanaged.passRetained(exchange).toOpaque()
        inFlightCount.add(1, ordering: .relaxed)
        metrics.started()
        exchange.begin()
        return .YES
    }

    func completed(_ exchange: Exchange, termination: MHD_RequestTerminationCode) {
        exchange.end(termination: termination)
        if exchange.tracked {
            live.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(exchange)) }
        }
        inFlightCount.subtract(1, ordering: .releasing)
        metrics.finished()
        let duration = ContinuousClock.now - exchange.started
        let status = exchange.queued ? exchange.sentStatus : 0
        if exchange.queued {
            metrics.record(
                method: exchange.method.rawValue, route: exchange.routeLabel, status: status, duration: duration)
        }
        let milliseconds = duration.seconds * 1000
        let outcome =
            switch termination {
            case .REQUEST_TERMINATED_COMPLETED_OK: "ok"
            case .REQUEST_TERMINATED_TIMEOUT_REACHED: "timeout"
            case .REQUEST_TERMINATED_CLIENT_ABORT: "client_abort"
            case .REQUEST_TERMINATED_DAEMON_SHUTDOWN: "shutdown"
            default: "error"
            }
        logger.info(
            "request",
            metadata: [
                "method": exchange.method.rawValue, "path": exchange.path, "route": exchange.routeLabel,
                "status": status == 0 ? "-" : String(status), "bytes": String(exchange.sentBytes),
                "duration_ms": Self.format(milliseconds), "request_id": exchange.requestID,
                "remote": exchange.remoteAddress, "outcome": outcome,
            ])
    }

    /// `12.345`: milliseconds with exactly three decimals.
    static func format(_ milliseconds: Double) -> String {
        let micros = max(0, Int((milliseconds * 1000).rounded()))
        let fraction = micros % 1000
        return String(micros / 1000) + (fraction < 10 ? ".00" : fraction < 100 ? ".0" : ".") + String(fraction)
    }

    static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, data, size, slot in
        guard let cls, let connection, let url, let method, let size, let slot else { return .NO }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        return core.handle(
            connection: connection, url: String(cString: url), method: String(cString: method), data: data, size: size,
            slot: slot)
    }

    static let completionHandler: MHD_RequestCompletedCallback = { cls, _, slot, termination in
        guard let cls, let slot, let raw = slot.pointee else { return }
        slot.pointee = nil
        // A request refused by the URI guard that never reached the access handler: no exchange to release.
        if raw == earshot_mhd_query_refused() { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeRetainedValue()
        core.completed(exchange, termination: termination)
    }

    static let logSink: earshot_mhd_log_sink = { message in
        guard let message else { return }
        var text = String(cString: message)
        while text.last?.isNewline == true { text.removeLast() }
        Logger(label: "http").warning("libmicrohttpd: \(text)")
    }
}
