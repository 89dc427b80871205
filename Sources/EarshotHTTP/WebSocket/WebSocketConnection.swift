internal import CMicroHTTPD
import EarshotCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The socket of one upgraded connection and the thread that serves it.
///
/// libmicrohttpd hands over the socket after the 101 answer (``WebSocketUpgrade``); from then on one thread of this
/// connection's own polls it, reads and parses frames (answering pings, delivering messages to ``inbound``), writes
/// the send queue, keeps the timers (ping, idle, stall, close), and at the end gives the socket back to
/// libmicrohttpd to close (`MHD_UPGRADE_ACTION_CLOSE`). Tasks talk to it through `state` and wake it through a pipe.
final class WebSocketConnection: Sendable {
    /// The upgraded socket and libmicrohttpd's handle for it.
    struct Socket: @unchecked Sendable {
        // SAFETY: the descriptor is read and written only by the connection's thread; the handle is used once, by that
        // thread, at its end (MHD_upgrade_action is thread-safe).
        let descriptor: Int32
        let handle: OpaquePointer
    }

    private struct State {
        var outbox: [[UInt8]] = []
        var outboxOffset = 0
        var outboxBytes = 0
        /// Sends waiting for room in the queue, in order.
        var waiting: [(frame: [UInt8], continuation: CheckedContinuation<Void, any Error>)] = []
        var stalledSince: ContinuousClock.Instant?
        /// Bytes delivered to ``inbound`` and not yet taken by the session.
        var inboundBytes = 0
        /// A close frame is queued or sent: nothing else may be queued.
        var closing = false
        var closeDeadline: ContinuousClock.Instant?
        var closeReceived = false
        var closeCode: WebSocketCloseCode?
        /// Drop the connection now (the server's grace period is over).
        var abort = false
        var finished = false
    }

    let configuration: WebSocket.Configuration
    let inbound: AsyncStream<WebSocketMessage>
    private let inboundContinuation: AsyncStream<WebSocketMessage>.Continuation
    private let state = Mutex(State())
    private let socket: Socket
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let logger: Logger
    private let done = Mutex<[CheckedContinuation<Void, Never>]?>([])

    init(socket: Socket, initial: [UInt8], configuration: WebSocket.Configuration, logger: Logger) {
        self.socket = socket
        self.configuration = configuration
        self.logger = logger
        (inbound, inboundContinuation) = AsyncStream.makeStream(of: WebSocketMessage.self)
        var fds: [Int32] = [0, 0]
        if pipe(&fds) != 0 { fds = [-1, -1] }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        for fd in [wakeRead, wakeWrite, socket.descriptor] where fd >= 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        let thread = Thread { [self] in
            self.serve(initial: initial)
        }
        thread.name = "earshot-websocket"
        thread.start()
    }

    deinit {
        // Closed here, not when the thread ends: a late wake() must never write into a reused descriptor.
        if wakeRead >= 0 { Glibc.close(wakeRead) }
        if wakeWrite >= 0 { Glibc.close(wakeWrite) }
    }

    // MARK: - Any task

    var closeCode: WebSocketCloseCode? { state.withLock { $0.closeCode } }

    func send(_ frame: [UInt8]) async throws {
        try Task.checkCancellation()
        let queued: Bool = try state.withLock { state in
            guard !state.closing, !state.finished else { throw StreamChannel.gone }
            if state.waiting.isEmpty, state.outboxBytes + frame.count <= configuration.maxSendQueue
                || state.outboxBytes == 0
            {
                state.outbox.append(frame)
                state.outboxBytes += frame.count
                return true
            }
            return false
        }
        if queued {
            wake()
            return
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let (refused, stalledNow): (Bool, Bool) = state.withLock { state in
                if state.closing || state.finished { return (true, false) }
                state.waiting.append((frame, continuation))
                guard state.stalledSince == nil else { return (false, false) }
                state.stalledSince = .now
                return (false, true)
            }
            if refused { continuation.resume(throwing: StreamChannel.gone) }
            // The I/O loop may be asleep for up to the ping interval: wake it so that it watches the stall (every
            // 100 ms) and closes with 1008 after sendStallTimeout, not whenever it next wakes.
            if stalledNow { wake() }
        }
    }

    func close(_ code: WebSocketCloseCode, reason: String) {
        let failed = state.withLock { state in beginClose(&state, code: code, reason: reason) }
        for waiter in failed { waiter.resume(throwing: StreamChannel.gone) }
        inboundContinuation.finish()
        wake()
    }

    /// The server's grace period is over: drop the connection without waiting for the client.
    func abort() {
        state.withLock { $0.abort = true }
        wake()
    }

    /// The session took a message of `count` bytes: reading resumes if it had paused.
    func consumed(_ count: Int) {
        let resume: Bool = state.withLock { state in
            let paused = state.inboundBytes > configuration.maxInboundBuffer
            state.inboundBytes -= count
            return paused && state.inboundBytes <= configuration.maxInboundBuffer
        }
        if resume { wake() }
    }

    /// Returns once the socket is given back to libmicrohttpd.
    func waitUntilClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = done.withLock { waiters in
                guard waiters != nil else { return true }
                waiters!.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Queues a close frame unless one is queued; returns the sends that can no longer go out. Call under the lock.
    private func beginClose(
        _ state: inout State, code: WebSocketCloseCode?, reason: String, discardQueued: Bool = false
    ) -> [CheckedContinuation<Void, any Error>] {
        guard !state.closing else { return [] }
        state.closing = true
        if state.closeCode == nil { state.closeCode = code ?? .noStatus }
        let close = WebSocketFrame.close(code, reason: reason).encoded()
        // An orderly close sends what is queued first; a client that stopped reading gets only the frame being
        // written (it must be completed), then the close frame.
        if discardQueued {
            if state.outboxOffset > 0, let head = state.outbox.first {
                state.outbox = [head]
                state.outboxBytes = head.count - state.outboxOffset
            } else {
                state.outbox = []
                state.outboxBytes = 0
            }
        }
        state.outbox.append(close)
        state.outboxBytes += close.count
        state.closeDeadline = .now + configuration.closeTimeout
        defer { state.waiting = [] }
        return state.waiting.map(\.continuation)
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: - The connection's thread

    private func serve(initial: [UInt8]) {
        var parser = WebSocketFrameParser(role: .server, maxFramePayload: configuration.maxFramePayload)
        var assembler = WebSocketMessageAssembler(maxMessageSize: configuration.maxMessageSize)
        var lastReceived = ContinuousClock.now
        var pingSent = false
        var readOpen = true
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        parser.append(initial)
        var pendingParse = !initial.isEmpty

        func fail(_ violation: WebSocketViolation) {
            logger.info(
                "websocket protocol violation",
                metadata: ["code": String(violation.code.rawValue), "reason": violation.reason])
            readOpen = false
            close(violation.code, reason: violation.reason)
        }

        loop: while true {
            if pendingParse {
                pendingParse = false
                parsing: while readOpen {
                    let frame: WebSocketFrame?
                    do {
                        frame = try parser.next()
                    } catch {
                        fail(error)
                        break parsing
                    }
                    guard let frame else { break }
                    let event: WebSocketMessageAssembler.Event?
                    do {
                        event = try assembler.push(frame)
                    } catch {
                        fail(error)
                        break parsing
                    }
                    switch event {
                    case nil, .pong: break
                    case .message(let message):
                        let accepted = state.withLock { state in
                            guard !state.closing else { return false }
                            state.inboundBytes += message.byteCount
                            return true
                        }
                        if accepted { inboundContinuation.yield(message) }
                    case .ping(let payload):
                        let pong = WebSocketFrame(opcode: .pong, payload: payload).encoded()
                        state.withLock { state in
                            guard !state.closing else { return }
                            state.outbox.append(pong)
                            state.outboxBytes += pong.count
                        }
                    case .close(let code, let reason):
                        readOpen = false
                        let failed = state.withLock { state in
                            state.closeReceived = true
                            if !state.closing { state.closeCode = code ?? .noStatus }
                            // Echo the client's code (section 5.5.1); a close without a code is answered without one.
                            return beginClose(&state, code: code, reason: code == nil ? "" : reason)
                        }
                        for waiter in failed { waiter.resume(throwing: StreamChannel.gone) }
                        inboundContinuation.finish()
                    }
                }
            }

            // Write what is queued, move waiting sends into the queue, check the timers.
            let now = ContinuousClock.now
            var peerGone = false
            let (wantWrite, wantRead, finishedClosing, aborting, timeout, stallFailed) = state.withLock {
                state -> (Bool, Bool, Bool, Bool, Int32, [CheckedContinuation<Void, any Error>]) in
                while let head = state.outbox.first {
                    let written = head.withUnsafeBytes { bytes in
                        Glibc.send(
                            socket.descriptor, bytes.baseAddress! + state.outboxOffset, head.count - state.outboxOffset,
                            Int32(MSG_NOSIGNAL))
                    }
                    if written < 0 {
                        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { break }
                        peerGone = true
                        break
                    }
                    state.outboxOffset += written
                    state.outboxBytes -= written
                    if state.outboxOffset == head.count {
                        state.outbox.removeFirst()
                        state.outboxOffset = 0
                    }
                }
                var resumed: [CheckedContinuation<Void, any Error>] = []
                while let next = state.waiting.first,
                    state.outboxBytes == 0 || state.outboxBytes + next.frame.count <= configuration.maxSendQueue
                {
                    state.waiting.removeFirst()
                    state.outbox.append(next.frame)
                    state.outboxBytes += next.frame.count
                    resumed.append(next.continuation)
                }
                if state.waiting.isEmpty { state.stalledSince = nil }
                for continuation in resumed { continuation.resume() }
                var failed: [CheckedContinuation<Void, any Error>] = []
                if let since = state.stalledSince, now - since > configuration.sendStallTimeout, !state.closing {
                    failed = beginClose(
                        &state, code: .policyViolation,
                        reason: "the client did not read its messages for \(configuration.sendStallTimeout)",
                        discardQueued: true)
                }
                if !state.closing, now - lastReceived > configuration.idleTimeout {
                    failed += beginClose(&state, code: .goingAway, reason: "idle timeout")
                }
                if !state.closing, !pingSent, now - lastReceived > configuration.pingInterval {
                    pingSent = true
                    let ping = WebSocketFrame(opcode: .ping, payload: Array("earshot".utf8)).encoded()
                    state.outbox.append(ping)
                    state.outboxBytes += ping.count
                }
                let sentClose = state.closing && state.outbox.isEmpty
                let closeDone = sentClose && (state.closeReceived || !readOpen)
                let expired = state.closeDeadline.map { now >= $0 } ?? false
                var wait = min(configuration.pingInterval, configuration.idleTimeout)
                if let deadline = state.closeDeadline { wait = min(wait, max(.zero, deadline - now)) }
                if state.stalledSince != nil { wait = min(wait, .milliseconds(100)) }
                let milliseconds = Int32(clamping: wait.components.seconds * 1000 + 1)
                return (
                    !state.outbox.isEmpty, readOpen && state.inboundBytes <= configuration.maxInboundBuffer,
                    closeDone || expired, state.abort, milliseconds, failed
                )
            }
            for waiter in stallFailed { waiter.resume(throwing: StreamChannel.gone) }
            if !stallFailed.isEmpty { inboundContinuation.finish() }
            if peerGone || finishedClosing || aborting { break loop }

            var fds = [
                pollfd(
                    fd: socket.descriptor,
                    events: Int16((wantRead ? POLLIN : 0) | (wantWrite ? POLLOUT : 0)), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, timeout)
            if ready < 0 && errno != EINTR { break loop }
            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &drain, drain.count) > 0 {}
            }
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0, wantRead || fds[0].revents & Int16(POLLERR) != 0 {
                let count = recv(socket.descriptor, &buffer, buffer.count, 0)
                if count > 0 {
                    lastReceived = .now
                    pingSent = false
                    parser.append(buffer[0..<count])
                    pendingParse = true
                } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                    // The client vanished (or closed TCP) without finishing the closing handshake.
                    break loop
                }
            }
        }
        finish()
    }

    private func finish() {
        let failed: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.finished = true
            if state.closeCode == nil || (!state.closeReceived && !state.closing) { state.closeCode = .abnormal }
            state.outbox = []
            state.outboxBytes = 0
            defer { state.waiting = [] }
            return state.waiting.map(\.continuation)
        }
        for waiter in failed { waiter.resume(throwing: StreamChannel.gone) }
        inboundContinuation.finish()
        _ = earshot_mhd_upgrade_close(socket.handle)
        let waiters = done.withLock { waiters in
            defer { waiters = nil }
            return waiters ?? []
        }
        for waiter in waiters { waiter.resume() }
    }
}
