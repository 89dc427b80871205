/// One whole message: its type, flags, sequence number and payload, before it is cut into frames (``frames(
/// maximumFrameSize:)``) or after its frames were put back together (``MessageAssembler``).
public struct Envelope: Hashable, Sendable {
    /// The message type (``Opcode`` raw value).
    public var type: UInt8
    /// Request, response, event, error; never ``Frame/Flags/more``, which only fragments carry.
    public var flags: Frame.Flags
    /// The request's sequence number (echoed by its responses), or the device's event counter.
    public var sequence: UInt16
    /// The message's bytes.
    public var payload: [UInt8]

    /// A message.
    public init(type: UInt8, flags: Frame.Flags, sequence: UInt16, payload: [UInt8]) {
        self.type = type
        self.flags = flags.subtracting(.more)
        self.sequence = sequence
        self.payload = payload
    }

    /// The frames that carry this message on a link whose frames hold at most `maximumFrameSize` bytes: the payload
    /// in order, every frame but the last flagged ``Frame/Flags/more``. An empty payload is one empty frame.
    public func frames(maximumFrameSize: Int) -> [Frame] {
        let chunk = max(min(maximumFrameSize, Frame.maximumSize), Frame.minimumSize) - Frame.overhead
        guard !payload.isEmpty else { return [Frame(type: type, flags: flags, sequence: sequence)] }
        return stride(from: 0, to: payload.count, by: chunk).map { offset in
            let end = min(offset + chunk, payload.count)
            return Frame(
                type: type, flags: end < payload.count ? flags.union(.more) : flags, sequence: sequence,
                payload: Array(payload[offset..<end]))
        }
    }

    /// The frames' bytes, concatenated, for a stream transport.
    public func encoded(maximumFrameSize: Int) -> [UInt8] {
        frames(maximumFrameSize: maximumFrameSize).flatMap { $0.encoded() }
    }
}

/// Puts fragmented messages back together.
///
/// A sender never interleaves the fragments of two messages, so a frame that does not continue the pending message
/// (another type, sequence number or flags) means the rest of it was lost: the pending message is dropped (counted
/// in ``droppedMessages``; its requester times out and retries) and the new frame starts over.
public struct MessageAssembler: Sendable {
    /// The largest message accepted; a message growing past it is dropped with ``DeviceProtocolError/Code/tooLarge``.
    public var maximumMessageSize: Int
    /// Fragmented messages dropped because another message started before their last fragment.
    public private(set) var droppedMessages = 0

    private var pending: Envelope?

    /// An assembler accepting messages of up to `maximumMessageSize` bytes (default 1 MiB).
    public init(maximumMessageSize: Int = 1 << 20) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Whether part of a message has arrived and the rest has not.
    public var isPending: Bool { pending != nil }

    /// Adds a frame; returns the message it completes, or nil when more fragments are due.
    ///
    /// - Throws: ``DeviceProtocolError`` `tooLarge` for a message over the limit (dropped).
    public mutating func add(_ frame: Frame) throws(DeviceProtocolError) -> Envelope? {
        let flags = frame.flags.subtracting(.more)
        var message: Envelope
        if let partial = pending, partial.type == frame.type, partial.sequence == frame.sequence,
            partial.flags == flags
        {
            message = partial
            message.payload += frame.payload
        } else {
            if pending != nil { droppedMessages += 1 }
            message = Envelope(type: frame.type, flags: flags, sequence: frame.sequence, payload: frame.payload)
        }
        pending = nil
        guard message.payload.count <= maximumMessageSize else {
            throw DeviceProtocolError(.tooLarge, "a message of over \(maximumMessageSize) bytes (type \(frame.type))")
        }
        if frame.flags.contains(.more) {
            pending = message
            return nil
        }
        return message
    }
}
