/// One frame of the device protocol: what fits in one BLE notification (or one write on a stream transport).
///
/// Layout, little-endian (`docs/device-protocol.md`):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | magic `0xEA` |
/// | 1 | 1 | protocol version (high 4 bits, 1) and ``Flags`` (low 4 bits) |
/// | 2 | 1 | message type (``Opcode``) |
/// | 3 | 2 | sequence number |
/// | 5 | 2 | payload length *n* |
/// | 7 | 1 | CRC-8 of bytes 0 ..< 7 (the header check) |
/// | 8 | *n* | payload |
/// | 8 + *n* | 4 | CRC-32 of bytes 0 ..< 8 + *n* |
public struct Frame: Hashable, Sendable {
    /// What a frame is: a request (no flag), a response, an unsolicited event; whether it is an error answer and
    /// whether more fragments of the same message follow.
    public struct Flags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8

        public init(rawValue: UInt8) {
            self.rawValue = rawValue & 0x0F
        }

        /// An answer to the request with the same sequence number and type.
        public static let response = Flags(rawValue: 1)
        /// More fragments of this message follow (same type, sequence number and flags).
        public static let more = Flags(rawValue: 2)
        /// Sent by the device unasked; the sequence number is the device's own.
        public static let event = Flags(rawValue: 4)
        /// The request failed; the payload is an error (code, message).
        public static let error = Flags(rawValue: 8)
    }

    /// The first byte of every frame, where a reader resynchronises after garbage.
    public static let magic: UInt8 = 0xEA
    /// The frame layout's version, in every frame's second byte.
    public static let version: UInt8 = 1
    /// Header (8 bytes, its check byte included) plus CRC (4 bytes).
    public static let overhead = 12
    /// The header's size, its check byte included.
    public static let headerSize = 8
    /// The smallest frame every device and client must accept: BLE's default ATT MTU (23) minus its 3-byte header.
    /// Both sides use it until `hello` has negotiated a larger one.
    public static let minimumSize = 20
    /// The largest frame the layout can describe.
    public static let maximumSize = overhead + Int(UInt16.max)

    /// The message type.
    public var type: UInt8
    /// Request, response, event, error, more fragments.
    public var flags: Flags
    /// Pairs a response with its request; counts a device's events.
    public var sequence: UInt16
    /// The message bytes this frame carries (all of them, or one fragment).
    public var payload: [UInt8]

    /// A frame; `payload` must be at most 65,535 bytes.
    public init(type: UInt8, flags: Flags = [], sequence: UInt16, payload: [UInt8] = []) {
        precondition(payload.count <= Int(UInt16.max), "a frame carries at most 65,535 payload bytes")
        self.type = type
        self.flags = flags
        self.sequence = sequence
        self.payload = payload
    }

    /// The frame's bytes on the wire.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.overhead + payload.count)
        bytes.append(Self.magic)
        bytes.append(Self.version << 4 | flags.rawValue)
        bytes.append(type)
        bytes.append(UInt8(truncatingIfNeeded: sequence))
        bytes.append(UInt8(truncatingIfNeeded: sequence >> 8))
        bytes.append(UInt8(truncatingIfNeeded: payload.count))
        bytes.append(UInt8(truncatingIfNeeded: payload.count >> 8))
        bytes.append(CRC8.checksum(bytes))
        bytes += payload
        let crc = CRC32.checksum(bytes)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        return bytes
    }
}
