/// One RFC 6455 frame (section 5.2): its header bits and its unmasked payload.
public struct WebSocketFrame: Sendable, Hashable {
    /// The frame's opcode (section 5.2).
    public struct Opcode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let continuation = Opcode(rawValue: 0x0)
        public static let text = Opcode(rawValue: 0x1)
        public static let binary = Opcode(rawValue: 0x2)
        public static let close = Opcode(rawValue: 0x8)
        public static let ping = Opcode(rawValue: 0x9)
        public static let pong = Opcode(rawValue: 0xA)

        /// Close, ping and pong (opcodes 0x8–0xF): never fragmented, at most 125 payload bytes.
        public var isControl: Bool { rawValue & 0x8 != 0 }
        /// An opcode RFC 6455 defines (the others are reserved and refused).
        var isKnown: Bool { [0x0, 0x1, 0x2, 0x8, 0x9, 0xA].contains(rawValue) }

        public var description: String {
            switch self {
            case .continuation: "continuation"
            case .text: "text"
            case .binary: "binary"
            case .close: "close"
            case .ping: "ping"
            case .pong: "pong"
            default: "opcode 0x" + String(rawValue, radix: 16)
            }
        }
    }

    /// The last frame of a message.
    public var fin: Bool
    public var opcode: Opcode
    /// The payload, already unmasked.
    public var payload: [UInt8]

    public init(fin: Bool = true, opcode: Opcode, payload: [UInt8] = []) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// The frame on the wire. A server sends unmasked frames (`maskingKey` nil); a client masks every frame with a
    /// fresh 4-byte key (section 5.3).
    public func encoded(maskingKey: [UInt8]? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + 14)
        bytes.append((fin ? 0x80 : 0) | (opcode.rawValue & 0x0F))
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        switch payload.count {
        case 0...125:
            bytes.append(maskBit | UInt8(payload.count))
        case 126...0xFFFF:
            bytes.append(maskBit | 126)
            bytes.append(UInt8(payload.count >> 8))
            bytes.append(UInt8(payload.count & 0xFF))
        default:
            bytes.append(maskBit | 127)
            let length = UInt64(payload.count)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((length >> UInt64(shift)) & 0xFF)) }
        }
        if let key = maskingKey {
            precondition(key.count == 4, "a masking key is 4 bytes")
            bytes.append(contentsOf: key)
            for (index, byte) in payload.enumerated() { bytes.append(byte ^ key[index & 3]) }
        } else {
            bytes.append(contentsOf: payload)
        }
        return bytes
    }

    /// A close frame carrying `code` and a UTF-8 `reason` (cut to fit the 125-byte control-frame limit).
    public static func close(_ code: WebSocketCloseCode?, reason: String = "") -> WebSocketFrame {
        guard let code else { return WebSocketFrame(opcode: .close) }
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var reasonBytes = Array(reason.utf8)
        if reasonBytes.count > 123 {
            // Cut on a character boundary so the reason stays valid UTF-8.
            var cut = 123
            while cut > 0, reasonBytes[cut] & 0xC0 == 0x80 { cut -= 1 }
            reasonBytes = Array(reasonBytes[..<cut])
        }
        payload.append(contentsOf: reasonBytes)
        return WebSocketFrame(opcode: .close, payload: payload)
    }
}

/// A status code of a close frame (RFC 6455 section 7.4).
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normal = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the server is shutting down, or the connection was idle too long.
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: a frame broke the protocol (unmasked client frame, reserved bits or opcode, bad fragmentation).
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a kind of message the endpoint does not accept (binary where only text is understood).
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: no status code was present (never sent in a frame).
    public static let noStatus = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent in a frame).
    public static let abnormal = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a text message was not valid UTF-8.
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a policy was broken (a client that stopped reading while the server had messages for it).
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a frame or a message was larger than the endpoint accepts.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1011: the server met an unexpected condition.
    public static let internalError = WebSocketCloseCode(rawValue: 1011)
    /// 1013: the server is overloaded; try again later.
    public static let tryAgainLater = WebSocketCloseCode(rawValue: 1013)

    /// Whether a peer may send this code in a close frame (section 7.4: 1000–1003, 1007–1014, 3000–4999).
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    public var description: String { String(rawValue) }
}
