/// What went wrong in the device protocol: a frame that does not parse, a message a peer refused, a transport that
/// closed. One error type for the module; ``code`` is extensible and travels on the wire in error frames.
public struct DeviceProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, numbered reason. The numbers are part of the protocol (`docs/device-protocol.md`): never renumber.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt16

        public init(rawValue: UInt16) {
            self.rawValue = rawValue
        }

        /// The frame or message is malformed: a truncated field, a length past the end, invalid UTF-8.
        public static let malformed = Code(rawValue: 1)
        /// The frame's CRC-32 does not match its bytes.
        public static let badChecksum = Code(rawValue: 2)
        /// No protocol version both sides speak.
        public static let unsupportedVersion = Code(rawValue: 3)
        /// A message type this side does not know.
        public static let unknownType = Code(rawValue: 4)
        /// A frame or reassembled message larger than the negotiated limit.
        public static let tooLarge = Code(rawValue: 5)
        /// The device is not bound; bind it first.
        public static let notBound = Code(rawValue: 6)
        /// The device is bound to another owner (the platform's `BIND_OCCUPIED`).
        public static let bindOccupied = Code(rawValue: 7)
        /// The bind code is wrong or was already used.
        public static let badBindCode = Code(rawValue: 8)
        /// Too many attempts; wait and retry (bind codes).
        public static let rateLimited = Code(rawValue: 9)
        /// The session has not proved it is the owner (send `auth` after `hello`).
        public static let notAuthenticated = Code(rawValue: 10)
        /// No recording with that id (or it was already acknowledged and freed).
        public static let notFound = Code(rawValue: 11)
        /// An offset or length outside the recording.
        public static let outOfRange = Code(rawValue: 12)
        /// The acknowledged SHA-256 is not the recording's: nothing was freed.
        public static let digestMismatch = Code(rawValue: 13)
        /// The device's storage is full: recording refused.
        public static let storageFull = Code(rawValue: 14)
        /// The device is busy with something that excludes this request (recording while unbinding…).
        public static let busy = Code(rawValue: 15)
        /// The transport closed or timed out.
        public static let disconnected = Code(rawValue: 16)
        /// A request arrived out of order (a response to no request, a fragment of another message).
        public static let unexpected = Code(rawValue: 17)
        /// The device failed internally (storage I/O…).
        public static let deviceFault = Code(rawValue: 18)

        public var description: String {
            switch self {
            case .malformed: "malformed"
            case .badChecksum: "bad checksum"
            case .unsupportedVersion: "unsupported version"
            case .unknownType: "unknown type"
            case .tooLarge: "too large"
            case .notBound: "not bound"
            case .bindOccupied: "bind occupied"
            case .badBindCode: "bad bind code"
            case .rateLimited: "rate limited"
            case .notAuthenticated: "not authenticated"
            case .notFound: "not found"
            case .outOfRange: "out of range"
            case .digestMismatch: "digest mismatch"
            case .storageFull: "storage full"
            case .busy: "busy"
            case .disconnected: "disconnected"
            case .unexpected: "unexpected"
            case .deviceFault: "device fault"
            default: "error \(rawValue)"
            }
        }
    }

    /// Why.
    public let code: Code
    /// What a person reads: what was wrong and, where it helps, what to do.
    public let message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
