internal import CMicroHTTPD
import EarshotCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One request on one libmicrohttpd connection, from its headers to the completion callback.
///
/// libmicrohttpd calls the access handler for a connection from one worker thread at a time: first with the
/// headers (``begin()``), then once per body chunk (``receive(_:)``), then with no data once the body is complete
/// (``finish()``, called again after every resume until a response is queued). A handler task running on the Swift
/// pool delivers its response with ``complete(_:)``, which resumes the suspended connection; the worker then queues
/// the response on the next ``finish()``.
final class Exchange: @unchecked Sendable {
    // SAFETY: the `var`s below are touched only by the libmicrohttpd worker thread that owns `connection` (MHD never
    // runs the access handler or completion callback of one connection on two threads at once). Handler tasks only
    // read the immutable `let`s and go through `shared`, a Mutex. The MHD connection pointer is used from other
    // threads only for MHD_resume_connection, which is thread-safe, and only while the connection is known to be
    // suspended (so it cannot have been closed).

    /// State shared between the worker thread and the handler task.
    struct Shared {
        /// The connection is suspended (waiting for the handler's response or for the body consumer).
        var suspended = false
        /// libmicrohttpd reported the request finished (or the connection died); nothing may touch it any more.
        var closed = false
        /// The handler's response, once it has one.
        var response: Response?
        /// Body chunks received but not yet consumed (``BodyMode/stream(limit:)``).
        var chunks: [[UInt8]] = []
        var bufferedBytes = 0
        var bodyFinished = false
        var bodyFailure: (any Error)?
        var waiter: CheckedContinuation<[UInt8]?, any Error>?
        /// The streamed body being sent, once queued.
        var stream: StreamChannel?
        /// The route's head check accepted the request (its refusal is a ``response``).
        var checkPassed = false
        /// The WebSocket upgrade queued, until libmicrohttpd hands over the socket.
        var upgrade: WebSocketUpgrade.Handoff?
    }

    /// Where the route's ``HeadCheck`` is.
    enum CheckState {
        /// The route has none, or it passed and the body is being received.
        case none
        /// Running: the connection is suspended before its body.
        case pending
    }

    let core: ServerCore
    let connection: OpaquePointer
    let method: HTTPMethod
    let path: String
    let started = ContinuousClock.now
    let shared = Mutex(Shared())

    // Worker-thread state.
    var requestID = ""
    var routeLabel = "unmatched"
    var route: Route?
    var parameters = Parameters()
    var headers = HTTPHeaders()
    var query = QueryParameters()
    var remoteAddress = ""
    var limit = 0
    var declaredLength: Int?
    var checkState = CheckState.none
    /// The URI guard cut off a query with more than ``HTTPServer/Configuration/queryParameterLimit`` parameters.
    var queryRefused = false
    var received = 0
    var overLimit = false
    var buffer: [UInt8] = []
    var fileSink: FileSink?
    /// The checksums the client sent with a file body (checked before the handler runs, echoed on a 2xx).
    var checksums = BodyChecksums()
    var dispatched = false
    /// Registered with ``ServerCore/track(_:)`` (an async handler may leave the connection suspended).
    var tracked = false
    var queued = false
    var sentStatus = 0
    var sentBytes = 0

    init(core: ServerCore, connection: OpaquePointer, method: String, path: String) {
        self.core = core
        self.connection = connection
        self.method = HTTPMethod(rawValue: method)
        self.path = path
    }

    // MARK: - Worker thread

    /// First call: read headers, pick the request id, match the route, refuse what can be refused before the body.
    func begin() {
        headers = HTTPHeaders(Self.values(of: connection, kind: .HEADER_KIND))
        query = QueryParameters(Self.values(of: connection, kind: .GET_ARGUMENT_KIND).map { (name: $0.0, value: $0.1) })
        requestID = Self.saneRequestID(headers["X-Request-Id"]) ?? core.requestIDs.make()
        remoteAddress = Self.peerAddress(of: connection)

        if queryRefused {
            let most = core.configuration.queryParameterLimit
            respondNow(
                error: HTTPError(
                    HTTPStatus(code: 414), code: "URI_TOO_LONG",
                    message: "the query has more than \(most) parameters; send at most \(most)"))
            return
        }
        switch core.routes.match(method: method, path: path) {
        case .notFound:
            respondNow(error: .notFound("no route for \(method.rawValue) \(path)"))
        case .methodNotAllowed(let allowed):
            respondNow(error: .methodNotAllowed(method, path: path, allowed: allowed))
        case .found(let route, let parameters):
            self.route = route
            self.parameters = parameters
            routeLabel = route.label
            limit = route.body.limit ?? core.configuration.defaultBodyLimit
            declaredLength = headers["Content-Length"].flatMap { Int($0.trimmingASCIISpaces()) }
            if let declared = declaredLength, declared > limit {
                respondNow(error: .payloadTooLarge(limit: limit))
                return
            }
            if let headCheck = route.check {
                startCheck(headCheck)
                return
            }
            prepareBody()
        }
    }

    /// Gets ready to receive the route's body (after its head check, if it has one).
    private func prepareBody() {
        guard let route else { return }
        switch route.body.kind {
        case .buffered:
            buffer.reserveCapacity(min(declaredLength ?? 0, limit))
        case .stream:
            if !dispatch(body: .stream(BodyStream(exchange: self))) {
                respondNow(error: .unavailable("the server is shutting down; retry on another instance"))
            }
        case .file(let directory):
            switch BodyChecksums.parse(headers) {
            case .success(let sent): checksums = sent
            case .failure(let refusal):
                respondNow(error: refusal)
                return
            }
            do {
                fileSink = try FileSink(directory: directory, requestID: requestID, crc32: checksums.crc32 != nil)
            } catch {
                core.logger.error(
                    "cannot create upload file", metadata: ["request_id": requestID, "error": "\(error)"])
                respondNow(error: .internal(requestID: requestID))
            }
        }
    }

    /// Suspends the connection before its body and runs the route's head check as a task; ``checkPassed()`` or a
    /// refusal (``complete(_:)``) resumes it, and libmicrohttpd calls ``finish()`` again, still before the body.
    private func startCheck(_ headCheck: @escaping HeadCheck) {
        // Tracked before it can be suspended, so that ServerCore.abandonAll finds it.
        tracked = true
        core.track(self)
        let suspended = shared.withLock { state -> Bool in
            if core.forcing { return false }
            state.suspended = true
            MHD_suspend_connection(connection)
            return true
        }
        guard suspended else {
            respondNow(error: .unavailable("the server is shutting down; retry on another instance"))
            return
        }
        checkState = .pending
        let request = Request(
            method: method, path: path, query: query, headers: headers, remoteAddress: remoteAddress, body: .bytes([]))
        let logContext: LogMetadata = ["request_id": requestID]
        let context = RequestContext(
            requestID: requestID, route: routeLabel, parameters: parameters, logger: core.logger.with(logContext))
        let job = Job(
            exchange: self, work: .check(headCheck), request: request, context: context, logContext: logContext)
        if !core.enqueue(job) {
            complete(Response.error(.unavailable("the server is shutting down"), requestID: requestID))
        }
    }

    /// The head check accepted the request: resume the connection so that its body is read.
    func checkPassed() {
        shared.withLock { state in
            guard state.response == nil, !state.closed else { return }
            state.checkPassed = true
            if state.suspended {
                state.suspended = false
                MHD_resume_connection(connection)
            }
        }
    }

    /// A body chunk. Returns false to make libmicrohttpd drop the connection (a body far over its limit).
    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard !queued else { return true }
        received += chunk.count
        if overLimit || received > limit {
            if !overLimit {
                overLimit = true
                buffer = []
                fileSink?.discard()
                fileSink = nil
                failBody(HTTPError.payloadTooLarge(limit: limit))
            }
            // libmicrohttpd can only answer once the request is complete: keep discarding for a while so a
            // modest overshoot still gets its 413, then give up and close.
            return received - limit <= core.configuration.bodyOverflowAllowance
        }
        guard let route else { return true }
        switch route.body.kind {
        case .buffered:
            buffer.append(contentsOf: chunk)
        case .file:
            fileSink?.write(chunk)
        case .stream:
            push(Array(chunk))
        }
        return true
    }

    /// The body is complete (also called again after each resume): dispatch the handler or queue its response.
    func finish() {
        guard !queued else { return }
        if checkState == .pending {
            // Called again after the head check resumed the connection, before any body byte.
            let (passed, refusal) = shared.withLock { ($0.checkPassed, $0.response) }
            if let refusal {
                queue(refusal)
            } else if passed {
                checkState = .none
                prepareBody()
            }
            return
        }
        if overLimit {
            respondNow(error: .payloadTooLarge(limit: limit))
            return
        }
        guard let route else { return }
        if !dispatched {
            switch route.body.kind {
            case .buffered:
                let body = buffer
                buffer = []
                if !dispatch(body: .bytes(body)) {
                    respondNow(error: .unavailable("the server is shutting down; retry on another instance"))
                    return
                }
            case .file:
                guard let sink = fileSink else { return }
                fileSink = nil
                switch sink.finish() {
                case .success(let upload):
                    if let damaged = checksums.mismatch(upload) {
                        unlink(upload.path)
                        respondNow(error: damaged)
                        return
                    }
                    if !dispatch(body: .file(upload)) {
                        unlink(upload.path)
                        respondNow(error: .unavailable("the server is shutting down; retry on another instance"))
                        return
                    }
                case .failure(let error):
                    core.logger.error(
                        "cannot write upload file", metadata: ["request_id": requestID, "error": "\(error)"])
                    let full = error.isOutOfSpace
                    respondNow(
                        error: HTTPError(
                            .insufficientStorage, code: "INSUFFICIENT_STORAGE",
                            message: full
                                ? "the server's disk is full, so the body was not stored; retry later"
                                : "cannot store the body"))
                    return
                }
            case .stream:
                break
            }
        }
        if queued { return }  // an inline handler already answered
        if case .stream = route.body.kind { finishBody() }
        awaitResponse()
    }

    /// Queues the handler's response if it is ready; otherwise suspends the connection until ``complete(_:)``.
    private func awaitResponse() {
        let ready: Response? = shared.withLock { state in
            if let response = state.response { return response }
            // Read under the lock: ServerCore.abandonAll sets the flag before locking each exchange, so either we
            // see it here or it sees us suspended and resumes us. A suspended connection must never outlive it.
            if core.forcing {
                return Response.error(.unavailable("the server is shutting down"), requestID: requestID)
            }
            state.suspended = true
            MHD_suspend_connection(connection)
            return nil
        }
        if let ready { queue(ready) }
    }

    /// Runs an inline handler and queues its response, or hands the request to ``HTTPServer/run()``'s task group.
    /// False when the server no longer accepts work.
    private func dispatch(body: RequestBody) -> Bool {
        guard let route else { return false }
        dispatched = true
        let request = Request(
            method: method, path: path, query: query, headers: headers, remoteAddress: remoteAddress, body: body)
        let logContext: LogMetadata = ["request_id": requestID]
        let context = RequestContext(
            requestID: requestID, route: routeLabel, parameters: parameters, logger: core.logger.with(logContext))
        switch route.handler {
        case .inline(let handler):
            queue(LogContext.with(logContext) { core.execute(handler, request: request, context: context) })
            return true
        case .inlineFirst(let attempt, let handler):
            if let response = LogContext.with(logContext, { core.attempt(attempt, request: request, context: context) })
            {
                queue(response)
                return true
            }
            tracked = true
            core.track(self)
            return core.enqueue(
                Job(exchange: self, work: .handle(handler), request: request, context: context, logContext: logContext))
        case .async(let handler):
            tracked = true
            core.track(self)
            return core.enqueue(
                Job(exchange: self, work: .handle(handler), request: request, context: context, logContext: logContext))
        }
    }

    private func respondNow(error: HTTPError) {
        queue(Response.error(error, requestID: requestID))
    }

    /// Builds the libmicrohttpd response and queues it.
    private func queue(_ response: Response) {
        guard !queued else { return }
        queued = true
        var status = response.status.code
        var headers = response.headers
        headers["X-Request-Id"] = requestID
        if (200..<300).contains(status) {
            for (name, value) in checksums.echo { headers[name] = value }
        }
        if core.draining, !Self.isUpgrade(response) { headers["Connection"] = "close" }
        var length = 0
        let pointer: OpaquePointer?
        switch response.body {
        case .empty:
            pointer = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        case .bytes(let bytes):
            length = bytes.count
            pointer = bytes.withUnsafeBytes {
                MHD_create_response_from_buffer(
                    $0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .file(let file):
            (pointer, status, length) = fileResponse(file, status: status, headers: &headers)
        case .stream(let stream):
            let channel = stream.channel
            channel.attach(connection)
            // Under the lock for the same reason as in awaitResponse: either abandon() finds this stream and fails
            // it, or the stream is failed here, so its content reader never suspends the connection during a stop.
            let forced = shared.withLock { state in
                state.stream = channel
                return core.forcing
            }
            if forced { channel.fail() }
            let retained = Unmanaged.passRetained(channel)
            pointer = MHD_create_response_from_callback(
                UInt64.max, 32 << 10, StreamChannel.contentReader, retained.toOpaque(), StreamChannel.release)
            if pointer == nil { retained.release() }
        case .webSocket(let upgrade):
            shared.withLock { $0.upgrade = upgrade.handoff }
            let retained = Unmanaged.passRetained(upgrade.handoff)
            pointer = MHD_create_response_for_upgrade(WebSocketUpgrade.upgradeHandler, retained.toOpaque())
            if pointer == nil {
                retained.release()
                upgrade.handoff.abandon()
            }
        }
        do {
            let mhdResponse = try check(pointer, "MHD_create_response", "cannot create a response")
            defer { MHD_destroy_response(mhdResponse) }
            for field in headers {
                // libmicrohttpd refuses headers it manages itself (Content-Length, Transfer-Encoding): skip them.
                _ = MHD_add_response_header(mhdResponse, field.name, field.value)
            }
            try check(MHD_queue_response(connection, UInt32(status), mhdResponse), "MHD_queue_response", "cannot queue")
            sentStatus = status
            sentBytes = method == .head ? 0 : length
        } catch {
            core.logger.error("cannot send response", metadata: ["request_id": requestID, "error": "\(error)"])
        }
    }

    private static func isUpgrade(_ response: Response) -> Bool {
        if case .webSocket = response.body { return true }
        return false
    }

    /// A sendfile response for `file`, applying conditional and range headers to successful GET/HEAD.
    private func fileResponse(_ file: FileBody, status: Int, headers: inout HTTPHeaders) -> (OpaquePointer?, Int, Int) {
        guard let fd = file.descriptor.take() else { return (nil, status, 0) }
        var first: Int64 = 0
        var count = file.size
        var status = status
        if status == 200 && (method == .get || method == .head) {
            headers["Accept-Ranges"] = "bytes"
            headers["ETag"] = file.etag
            headers["Last-Modified"] = HTTPDate.format(seconds: file.modified)
            if let match = self.headers["If-None-Match"],
                match.split(separator: ",").contains(where: {
                    String($0).trimmingASCIISpaces() == file.etag || $0 == "*"
                })
            {
                Glibc.close(fd)
                return (MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT), 304, 0)
            }
            switch ByteRange.resolve(self.headers["Range"], size: file.size) {
            case .whole:
                break
            case .partial(let a, let b):
                status = 206
                first = a
                count = b - a + 1
                headers["Content-Range"] = "bytes \(a)-\(b)/\(file.size)"
            case .unsatisfiable:
                Glibc.close(fd)
                let error = HTTPError(
                    .rangeNotSatisfiable, code: "RANGE_NOT_SATISFIABLE",
                    message: "requested range is outside the \(file.size)-byte file")
                let body = Response.error(error, requestID: requestID)
                headers["Content-Range"] = "bytes */\(file.size)"
                headers["Content-Type"] = "application/json"
                headers.remove(name: "ETag")
                guard case .bytes(let bytes) = body.body else { return (nil, 416, 0) }
                let pointer = bytes.withUnsafeBytes {
                    MHD_create_response_from_buffer(
                        $0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
                }
                return (pointer, 416, bytes.count)
            }
        }
        let pointer = MHD_create_response_from_fd_at_offset64(UInt64(count), fd, UInt64(first))
        if pointer == nil { Glibc.close(fd) }
        return (pointer, status, Int(count))
    }

    /// Completion callback: the request is over (sent, timed out, or the client went away).
    func end(termination: MHD_RequestTerminationCode) {
        let (waiter, stream, upgrade) = shared.withLock { state in
            state.closed = true
            state.suspended = false
            if state.bodyFailure == nil && !state.bodyFinished { state.bodyFailure = Self.clientClosed }
            defer { state.waiter = nil }
            return (state.waiter, state.stream, state.upgrade)
        }
        // No-op once the socket was handed over; otherwise the session never starts.
        upgrade?.abandon()
        waiter?.resume(throwing: Self.clientClosed)
        if let stream {
            stream.close()
            sentBytes = stream.sent
        }
        fileSink?.discard()
        fileSink = nil
    }

    static let clientClosed = HTTPError(
        HTTPStatus(code: 499), code: "CLIENT_CLOSED", message: "the client closed the connection before the body ended")

    // MARK: - Any thread

    /// Delivers the handler's response and wakes the connection if it is waiting for it.
    func complete(_ response: Response) {
        shared.withLock { state in
            guard state.response == nil, !state.closed else { return }
            state.response = response
            state.chunks.removeAll()
            state.bufferedBytes = 0
            if state.suspended {
                state.suspended = false
                MHD_resume_connection(connection)
            }
        }
    }

    /// Shutdown deadline passed: answer 503 on behalf of a handler that has not finished, so the daemon can stop.
    func abandon() {
        let response = Response.error(.unavailable("the server is shutting down"), requestID: requestID)
        // A streamed body still being produced ends as a broken transfer.
        shared.withLock { $0.stream }?.fail()
        shared.withLock { state in
            guard state.suspended, !state.closed else { return }
            if state.response == nil { state.response = response }
            state.suspended = false
            MHD_resume_connection(connection)
        }
    }

    // MARK: - Helpers

    /// A client-supplied request id is kept when it is 1–64 characters of `[A-Za-z0-9._-]`.
    static func saneRequestID(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 64 else { return nil }
        let ok = value.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F
                || c == 0x2D
        }
        return ok ? value : nil
    }

    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(String, String)] {
        final class Box {
            var items: [(String, String)] = []
        }
        let box = Box()
        let iterator: MHD_KeyValueIterator = { cls, _, key, value in
            let box = Unmanaged<Box>.fromOpaque(cls!).takeUnretainedValue()
            if let key {
                box.items.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            }
            return .YES
        }
        withExtendedLifetime(box) {
            _ = MHD_get_connection_values(connection, kind, iterator, Unmanaged.passUnretained(box).toOpaque())
        }
        return box.items
    }

    private static func peerAddress(of connection: OpaquePointer) -> String {
        guard let address = earshot_mhd_client_address(connection) else { return "" }
        var text = [CChar](repeating: 0, count: 64)
        guard earshot_format_address(address, &text, socklen_t(text.count)) == 0 else { return "" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A request handed from a libmicrohttpd worker to ``HTTPServer/run()``: its handler, or its route's head check.
struct Job: Sendable {
    enum Work: Sendable {
        case handle(Handler)
        case check(HeadCheck)
    }

    let exchange: Exchange
    let work: Work
    let request: Request
    let context: RequestContext
    /// Bound as the ``LogContext`` of the handler's task (`request_id`).
    let logContext: LogMetadata
}
