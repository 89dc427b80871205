/// A frame or message that breaks RFC 6455 or a limit: the connection is closed with ``code``.
public struct WebSocketViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// The close code the connection ends with (1002, 1007 or 1009).
    public let code: WebSocketCloseCode
    /// What was wrong, for the close frame's reason and the log.
    public let reason: String

    public init(_ code: WebSocketCloseCode, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code) \(reason)" }
}

/// Cuts a byte stream into RFC 6455 frames (section 5.2), incrementally: feed bytes as they arrive with
/// ``append(_:)`` and take whole frames with ``next()``.
///
/// Checked per frame: reserved bits (no extension is negotiated), reserved opcodes, control frames that are
/// fragmented or longer than 125 bytes, a 64-bit length with its top bit set (1002 `protocolError`), masking — every
/// client frame must be masked, every server frame must not be (1002) — and the payload limit (1009
/// `messageTooBig`, refused from the header alone, before the payload arrives). The buffer never holds more than one
/// frame's header and payload beyond what was already returned.
public struct WebSocketFrameParser: Sendable {
    /// Which side parses: a server reads masked client frames, a client reads unmasked server frames.
    public enum Role: Sendable {
        case server, client
    }

    public let role: Role
    /// The largest payload one frame may carry.
    public let maxFramePayload: Int
    private var buffer: [UInt8] = []
    private var offset = 0

    public init(role: Role, maxFramePayload: Int) {
        self.role = role
        self.maxFramePayload = maxFramePayload
    }

    /// Bytes received and not yet returned as frames.
    public var bufferedCount: Int { buffer.count - offset }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if offset > 0, offset == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            offset = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, or nil until more bytes arrive.
    ///
    /// - Throws: ``WebSocketViolation`` for a frame that breaks the protocol or the payload limit; the stream cannot
    ///   be parsed further.
    public mutating func next() throws(WebSocketViolation) -> WebSocketFrame? {
        let available = buffer.count - offset
        guard available >= 2 else { return nil }
        let first = buffer[offset]
        let second = buffer[offset + 1]
        let fin = first & 0x80 != 0
        if first & 0x70 != 0 {
            throw WebSocketViolation(.protocolError, "reserved bits set without a negotiated extension")
        }
        let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F)
        guard opcode.isKnown else { throw WebSocketViolation(.protocolError, "reserved \(opcode)") }
        let masked = second & 0x80 != 0
        switch (role, masked) {
        case (.server, false): throw WebSocketViolation(.protocolError, "client frames must be masked")
        case (.client, true): throw WebSocketViolation(.protocolError, "server frames must not be masked")
        default: break
        }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[offset + 2]) << 8 | UInt64(buffer[offset + 3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 0..<8 { length = length << 8 | UInt64(buffer[offset + 2 + index]) }
            if length & (1 << 63) != 0 {
                throw WebSocketViolation(.protocolError, "the most significant bit of a 64-bit length must be 0")
            }
            headerLength = 10
        }
        if opcode.isControl {
            if !fin { throw WebSocketViolation(.protocolError, "control frames must not be fragmented") }
            if length > 125 { throw WebSocketViolation(.protocolError, "control frames carry at most 125 bytes") }
        }
        if length > UInt64(maxFramePayload) {
            throw WebSocketViolation(
                .messageTooBig, "a frame of \(length) bytes is over the limit of \(maxFramePayload) bytes")
        }
        let payloadLength = Int(length)
        let maskLength = masked ? 4 : 0
        guard available >= headerLength + maskLength + payloadLength else { return nil }
        let payloadStart = offset + headerLength + maskLength
        var payload = Array(buffer[payloadStart..<(payloadStart + payloadLength)])
        if masked {
            let key = offset + headerLength
            let k0 = buffer[key]
            let k1 = buffer[key + 1]
            let k2 = buffer[key + 2]
            let k3 = buffer[key + 3]
            payload.withUnsafeMutableBufferPointer { bytes in
                var index = 0
                while index < bytes.count {
                    switch index & 3 {
                    case 0: bytes[index] ^= k0
                    case 1: bytes[index] ^= k1
                    case 2: bytes[index] ^= k2
                    default: bytes[index] ^= k3
                    }
                    index += 1
                }
            }
        }
        offset = payloadStart + payloadLength
        if offset == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 16)
            offset = 0
        } else if offset > 1 << 16 {
            buffer.removeFirst(offset)
            offset = 0
        }
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }
}

/// A whole message: text (valid UTF-8) or binary.
public enum WebSocketMessage: Sendable, Hashable {
    case text(String)
    case binary([UInt8])

    /// Payload bytes (UTF-8 for text).
    public var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let bytes): bytes.count
        }
    }
}

/// Joins data frames into messages (fragmentation, section 5.4) and sorts out control frames, checking the
/// message-size limit (1009), fragment order (1002), UTF-8 of text messages and close reasons (1007) and close
/// payloads (1002).
public struct WebSocketMessageAssembler: Sendable {
    /// What one frame amounts to.
    public enum Event: Sendable, Hashable {
        /// A whole data message.
        case message(WebSocketMessage)
        case ping([UInt8])
        case pong([UInt8])
        /// The peer's close frame: its code (nil when it had none) and reason.
        case close(WebSocketCloseCode?, String)
    }

    /// The largest message (all its fragments together).
    public let maxMessageSize: Int
    private var partialOpcode: WebSocketFrame.Opcode?
    private var partial: [UInt8] = []

    public init(maxMessageSize: Int) {
        self.maxMessageSize = maxMessageSize
    }

    /// The event `frame` completes, or nil for a fragment that does not end its message.
    public mutating func push(_ frame: WebSocketFrame) throws(WebSocketViolation) -> Event? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.close(frame.payload)
        case .continuation:
            guard let opcode = partialOpcode else {
                throw WebSocketViolation(.protocolError, "a continuation frame without a message to continue")
            }
            try grow(by: frame.payload.count)
            partial.append(contentsOf: frame.payload)
            guard frame.fin else { return nil }
            partialOpcode = nil
            defer { partial = [] }
            return .message(try Self.message(opcode, partial))
        default:
            if partialOpcode != nil {
                throw WebSocketViolation(.protocolError, "a new message began before the fragmented one ended")
            }
            if frame.payload.count > maxMessageSize { try grow(by: frame.payload.count) }
            guard frame.fin else {
                partialOpcode = frame.opcode
                partial = frame.payload
                return nil
            }
            return .message(try Self.message(frame.opcode, frame.payload))
        }
    }

    private func grow(by count: Int) throws(WebSocketViolation) {
        if partial.count + count > maxMessageSize {
            throw WebSocketViolation(
                .messageTooBig, "a message of more than \(maxMessageSize) bytes is over the limit")
        }
    }

    private static func message(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8]) throws(WebSocketViolation)
        -> WebSocketMessage
    {
        guard opcode == .text else { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw WebSocketViolation(.invalidPayload, "a text message is not valid UTF-8")
        }
        return .text(text)
    }

    private static func close(_ payload: [UInt8]) throws(WebSocketViolation) -> Event {
        if payload.isEmpty { return .close(nil, "") }
        guard payload.count >= 2 else {
            throw WebSocketViolation(.protocolError, "a close frame's payload is a 2-byte code and a reason")
        }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isSendable else { throw WebSocketViolation(.protocolError, "close code \(code) may not be sent") }
        guard let reason = String(validating: payload.dropFirst(2), as: UTF8.self) else {
            throw WebSocketViolation(.invalidPayload, "a close reason is not valid UTF-8")
        }
        return .close(code, reason)
    }
}
