import Foundation

/// A client's side of the device protocol over a ``DeviceLink`` (a ``StreamSocket``, a BLE link): numbered requests
/// matched with their responses, a read's chunks gathered, events delivered as they come, a time limit on every
/// request.
///
/// One reader thread per connection turns the link's bytes into messages. Requests may be issued from several
/// tasks at once; each waits for its own answer. After ``close()`` (or when the device goes away) waiting requests
/// fail with ``DeviceProtocolError/Code/disconnected``.
public final class DeviceConnection: @unchecked Sendable {
    // SAFETY: mutable state (`pending`, `nextSequence`, `frameSize`, `closedReason`, the event continuation) is
    // only touched under `lock`; `socket` (a `DeviceLink`) is thread-safe by that protocol's contract.
    private let socket: any DeviceLink
    private let lock = SocketLock()
    private var pending: [UInt16: Pending] = [:]
    private var nextSequence: UInt16 = 1
    private var frameSize = Frame.minimumSize
    private var closedReason: DeviceProtocolError?
    private var eventContinuation: AsyncStream<DeviceEvent>.Continuation?

    /// What the device reports unasked, until the connection closes.
    public let events: AsyncStream<DeviceEvent>

    private struct Pending {
        var responses: [DeviceResponse] = []
        /// The last response arrived (it may arrive before its requester waits for it).
        var complete = false
        var continuation: CheckedContinuation<[DeviceResponse], any Error>?
    }

    /// A connection over `link`; starts its reader thread.
    public init(link: any DeviceLink) {
        let socket = link
        self.socket = socket
        var continuation: AsyncStream<DeviceEvent>.Continuation?
        events = AsyncStream(bufferingPolicy: .bufferingNewest(256)) { continuation = $0 }
        eventContinuation = continuation
        let thread = Thread { [self] in readLoop() }
        thread.name = "earshot-device-read"
        thread.start()
    }

    /// Connects to a device listening on `host`:`port` (the simulator's link).
    public convenience init(host: String = "127.0.0.1", port: Int) throws(DeviceProtocolError) {
        self.init(link: try StreamSocket.connect(host: host, port: port))
    }

    deinit { close() }

    /// The frame size in use (the minimum until ``hello(_:timeout:)`` negotiated a larger one).
    public var maximumFrameSize: Int { lock.withLock { frameSize } }

    /// Says hello and adopts the negotiated frame size.
    ///
    /// - Throws: ``DeviceProtocolError`` from the device, or `disconnected`.
    public func hello(_ hello: HelloRequest, timeoutSeconds: Double = 10) async throws -> HelloReply {
        guard case .hello(let reply) = try await single(.hello(hello), timeoutSeconds: timeoutSeconds) else {
            throw DeviceProtocolError(.unexpected, "hello was not answered with hello")
        }
        lock.withLock { frameSize = max(Frame.minimumSize, Int(reply.maximumFrameSize)) }
        return reply
    }

    /// Sends `request` and returns its one response (a `read` is answered by ``read(recording:offset:length:
    /// timeoutSeconds:)``).
    ///
    /// - Throws: the device's ``DeviceProtocolError`` when it refused; `disconnected` when the link went away or
    ///   no answer came in time (the request may still have taken effect: acknowledgements are safe to repeat).
    public func single(_ request: DeviceRequest, timeoutSeconds: Double = 10) async throws -> DeviceResponse {
        let responses = try await send(request, timeoutSeconds: timeoutSeconds)
        if case .failed(let error) = responses.last { throw error }
        guard let response = responses.first else {
            throw DeviceProtocolError(.unexpected, "no response to \(request.opcode)")
        }
        return response
    }

    /// Reads up to `length` bytes of a recording from `offset`; fewer at its end.
    ///
    /// - Throws: as ``single(_:timeoutSeconds:)``.
    public func read(recording: UInt32, offset: UInt64, length: UInt32, timeoutSeconds: Double = 30) async throws
        -> [UInt8]
    {
        let responses = try await send(
            .read(recording: recording, offset: offset, length: length), timeoutSeconds: timeoutSeconds)
        return try Self.gather(responses, recording: recording, offset: offset)
    }

    /// A read's chunks put together, checked to be contiguous from `offset`.
    private static func gather(_ responses: [DeviceResponse], recording: UInt32, offset: UInt64) throws -> [UInt8] {
        if case .failed(let error) = responses.last { throw error }
        var bytes: [UInt8] = []
        for case .chunk(let chunk) in responses {
            guard chunk.recording == recording, chunk.offset == offset + UInt64(bytes.count) else {
                throw DeviceProtocolError(.unexpected, "a chunk out of order (offset \(chunk.offset))")
            }
            bytes += chunk.bytes
        }
        return bytes
    }

    /// A `read` sent ahead of time (``startRead(recording:offset:length:)``): the device answers requests in the order
    /// they were sent, so several reads can be in flight and the link never idles between them.
    public struct PendingRead: Sendable {
        let sequence: UInt16
        /// The recording, first byte and bytes asked.
        public let recording: UInt32
        public let offset: UInt64
        public let length: UInt32
    }

    /// Sends a `read` now and returns at once; collect its bytes with ``bytes(of:timeoutSeconds:)`` or drop it with
    /// ``cancel(_:)``. Reads started in order are answered in order.
    ///
    /// - Throws: `disconnected` when the link is gone.
    public func startRead(recording: UInt32, offset: UInt64, length: UInt32) throws(DeviceProtocolError)
        -> PendingRead
    {
        let sequence = try enqueue(.read(recording: recording, offset: offset, length: length))
        return PendingRead(sequence: sequence, recording: recording, offset: offset, length: length)
    }

    /// The bytes a started read answered (up to its length; fewer at the recording's end). The time limit counts from
    /// this call, so a read queued behind others is not charged for their transfer.
    ///
    /// - Throws: as ``read(recording:offset:length:timeoutSeconds:)``.
    public func bytes(of read: PendingRead, timeoutSeconds: Double = 30) async throws -> [UInt8] {
        let responses = try await responses(to: read.sequence, opcode: .read, timeoutSeconds: timeoutSeconds)
        return try Self.gather(responses, recording: read.recording, offset: read.offset)
    }

    /// Drops a started read whose bytes are no longer wanted (its answer is ignored when it comes).
    public func cancel(_ read: PendingRead) {
        abandon(read.sequence)
    }

    /// Closes the link; waiting requests fail with `disconnected`.
    public func close() {
        socket.close()
        finish(DeviceProtocolError(.disconnected, "the connection was closed"))
    }

    // MARK: Private

    private func send(_ request: DeviceRequest, timeoutSeconds: Double) async throws -> [DeviceResponse] {
        let sequence = try enqueue(request)
        return try await responses(to: sequence, opcode: request.opcode, timeoutSeconds: timeoutSeconds)
    }

    /// Registers a request and sends it now, in the caller's order; its answer is collected by ``responses(to:
    /// opcode:timeoutSeconds:)`` (or dropped by ``abandon(_:)``).
    private func enqueue(_ request: DeviceRequest) throws(DeviceProtocolError) -> UInt16 {
        let (sequence, size): (UInt16, Int) = try lock.withLock { () throws(DeviceProtocolError) in
            if let closedReason { throw closedReason }
            let sequence = nextSequence
            nextSequence = nextSequence == UInt16.max ? 1 : nextSequence + 1
            pending[sequence] = Pending()
            return (sequence, frameSize)
        }
        do {
            try socket.send(request.envelope(sequence: sequence).encoded(maximumFrameSize: size))
        } catch {
            abandon(sequence)
            throw error
        }
        return sequence
    }

    /// Forgets a request: answers that still come for it are dropped.
    private func abandon(_ sequence: UInt16) {
        let waiting = lock.withLock { pending.removeValue(forKey: sequence)?.continuation }
        waiting?.resume(throwing: CancellationError())
    }

    /// Waits (at most `timeoutSeconds`) for every response to the request numbered `sequence`.
    private func responses(to sequence: UInt16, opcode: Opcode, timeoutSeconds: Double) async throws
        -> [DeviceResponse]
    {
        let timeout = UInt64(max(timeoutSeconds, 0) * 1_000_000_000)
        return try await withThrowingTaskGroup(of: [DeviceResponse].self) { group in
            group.addTask {
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        let ready: Result<[DeviceResponse], any Error>? = self.lock.withLock {
                            guard let entry = self.pending[sequence] else {
                                return .failure(self.closedReason ?? CancellationError())
                            }
                            if entry.complete {
                                self.pending[sequence] = nil
                                return .success(entry.responses)
                            }
                            if let reason = self.closedReason { return .failure(reason) }
                            self.pending[sequence]?.continuation = continuation
                            return nil
                        }
                        if let ready { continuation.resume(with: ready) }
                    }
                } onCancel: {
                    self.abandon(sequence)
                }
            }
            group.addTask {
                try await Task.sleep(nanoseconds: timeout)
                throw DeviceProtocolError(.disconnected, "no answer to \(opcode) within \(timeoutSeconds) s")
            }
            do {
                let result = try await group.next()!
                group.cancelAll()
                return result
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }

    private func readLoop() {
        var decoder = FrameDecoder()
        var assembler = MessageAssembler()
        while true {
            let bytes: [UInt8]
            do { bytes = try socket.receive(maximum: 16_384) } catch {
                finish(error)
                return
            }
            if bytes.isEmpty {
                finish(DeviceProtocolError(.disconnected, "the device closed the connection"))
                return
            }
            decoder.append(bytes)
            while true {
                do {
                    guard let frame = try decoder.next() else { break }
                    guard let envelope = try assembler.add(frame) else { continue }
                    deliver(try DeviceMessage(envelope))
                } catch {
                    continue  // a damaged frame: its request times out and is retried by its caller
                }
            }
        }
    }

    private func deliver(_ message: DeviceMessage) {
        switch message {
        case .event(let event, _):
            _ = lock.withLock { eventContinuation?.yield(event) }
        case .response(let response, _, let sequence):
            let complete: Bool
            switch response {
            case .chunk(let chunk): complete = chunk.final
            default: complete = true
            }
            let ready = lock.withLock { () -> (CheckedContinuation<[DeviceResponse], any Error>, [DeviceResponse])? in
                guard var entry = pending[sequence] else { return nil }
                entry.responses.append(response)
                entry.complete = complete
                guard complete, let continuation = entry.continuation else {
                    pending[sequence] = entry  // complete before its requester waits: picked up when it does
                    return nil
                }
                pending[sequence] = nil
                return (continuation, entry.responses)
            }
            if let (continuation, responses) = ready { continuation.resume(returning: responses) }
        case .request:
            break  // devices do not ask
        }
    }

    private func finish(_ reason: DeviceProtocolError) {
        let (waiting, events) = lock.withLock {
            () -> ([CheckedContinuation<[DeviceResponse], any Error>], AsyncStream<DeviceEvent>.Continuation?) in
            if closedReason == nil { closedReason = reason }
            let waiting = pending.values.compactMap(\.continuation)
            pending.removeAll()
            defer { eventContinuation = nil }
            return (waiting, eventContinuation)
        }
        for continuation in waiting { continuation.resume(throwing: reason) }
        events?.finish()
    }
}
