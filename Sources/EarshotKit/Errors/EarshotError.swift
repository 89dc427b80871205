public import EarshotAPI

/// The one error type EarshotKit throws.
///
/// `code` is the server's wire code (`UNAUTHORIZED`, `NOT_FOUND`, `BIND_OCCUPIED`, …; see ``Code``) or one of the
/// client-side codes (``Code/network``, ``Code/integrity``, …). `status` is the HTTP status when the server
/// answered, and `requestID` its request id (from the error body or the `X-Request-Id` header): quote it when
/// reporting a problem. Task cancellation is not wrapped: a cancelled call throws `CancellationError`.
public struct EarshotError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Extensible: switch with a `default` branch.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The request is malformed: a missing or invalid field, a wrong file type (400).
        public static let invalidArgument = Code(ErrorCode.invalidArgument)
        /// No token, or an expired, forged or malformed one (401). The token provider, if any, was already asked
        /// once for a fresh token.
        public static let unauthorized = Code(ErrorCode.unauthorized)
        /// The credential may not do this (a user token on a partner-only call; an expired part URL) (403).
        public static let forbidden = Code(ErrorCode.forbidden)
        /// No such resource for this caller (404).
        public static let notFound = Code(ErrorCode.notFound)
        /// The method is not served on this path (405).
        public static let methodNotAllowed = Code(ErrorCode.methodNotAllowed)
        /// The request conflicts with the current state (an idempotency key reused with another body…) (409).
        public static let conflict = Code(ErrorCode.conflict)
        /// The body is larger than the server accepts (413).
        public static let payloadTooLarge = Code(ErrorCode.payloadTooLarge)
        /// Too many requests (429).
        public static let rateLimited = Code(ErrorCode.rateLimited)
        /// The device is already bound to another user (409).
        public static let bindOccupied = Code(ErrorCode.bindOccupied)
        /// No such device for this caller (404).
        public static let deviceNotFound = Code(ErrorCode.deviceNotFound)
        /// Bluetooth is off or not authorised (client-side).
        public static let bleUnavailable = Code(ErrorCode.bleUnavailable)
        /// The device has not reported lately, so it cannot be handed a Wi-Fi upload (409).
        public static let deviceOffline = Code(ErrorCode.deviceOffline)
        /// A dependency of the server is temporarily unavailable (503).
        public static let unavailable = Code(ErrorCode.unavailable)
        /// An unexpected server fault, or a wire code this SDK version does not know (500).
        public static let `internal` = Code(ErrorCode.internal)

        /// The server could not be reached or the connection failed (client-side; `underlying` has the cause).
        public static let network = Code(rawValue: "NETWORK")
        /// The server's answer was not what the API promises (unparseable JSON, a missing `ETag`…).
        public static let invalidResponse = Code(rawValue: "INVALID_RESPONSE")
        /// Bytes were damaged in transit: the server refused a part against its checksum (`BAD_DIGEST`), or a part's
        /// echoed checksum or `ETag` did not match the bytes sent.
        public static let integrity = Code(rawValue: "INTEGRITY")
        /// A local file could not be read or the resume state could not be written.
        public static let fileSystem = Code(rawValue: "FILE_SYSTEM")
        /// A transcription task ended in `FAILURE`.
        public static let taskFailed = Code(rawValue: "TASK_FAILED")
        /// A transcription task was revoked before it finished.
        public static let taskRevoked = Code(rawValue: "TASK_REVOKED")
        /// The recorder refused a request or its link failed (client side); ``EarshotError/underlying`` is the
        /// device protocol's error with the device's code and message.
        public static let device = Code(rawValue: "DEVICE")

        init(_ wire: ErrorCode) {
            rawValue = wire.rawValue
        }

        /// Maps a wire code; codes this SDK does not know become ``internal`` (as the API asks clients to do).
        /// `BAD_DIGEST` (the server found a body damaged against its checksum) is ``integrity``.
        public init(wire: ErrorCode) {
            if wire == .badDigest {
                self = .integrity
                return
            }
            self = Self.known.contains(wire.rawValue) ? Code(wire) : .internal
        }

        /// The code for an HTTP status when the body carries no error code.
        public init(status: Int) {
            switch status {
            case 400: self = .invalidArgument
            case 401: self = .unauthorized
            case 403: self = .forbidden
            case 404: self = .notFound
            case 405: self = .methodNotAllowed
            case 409: self = .conflict
            case 413: self = .payloadTooLarge
            case 429: self = .rateLimited
            case 503: self = .unavailable
            default: self = .internal
            }
        }

        private static let known: Set<String> = [
            "INVALID_ARGUMENT", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "METHOD_NOT_ALLOWED", "CONFLICT",
            "PAYLOAD_TOO_LARGE", "RATE_LIMITED", "BIND_OCCUPIED", "DEVICE_NOT_FOUND", "BLE_UNAVAILABLE", "DEVICE_OFFLINE",
            "UNAVAILABLE", "INTERNAL",
        ]
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for humans (the server's message when it sent one).
    public var message: String
    /// The HTTP status when the server answered, else nil.
    public var status: Int?
    /// The server's request id when it answered (quote it in support requests).
    public var requestID: String?
    /// The code exactly as the server sent it (also when ``code`` is ``Code/internal`` for an unknown one).
    public var wireCode: String?
    /// The lower-level cause (a `URLError`, a file error, the token provider's error…).
    public var underlying: (any Error)?

    public init(
        _ code: Code, _ message: String, status: Int? = nil, requestID: String? = nil, wireCode: String? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.requestID = requestID
        self.wireCode = wireCode
        self.underlying = underlying
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let status { text += " (HTTP \(status)" + (requestID.map { ", request \($0)" } ?? "") + ")" }
        if let underlying { text += " [\(underlying)]" }
        return text
    }

    /// True for failures worth retrying after a pause: network errors, 408, 429, 5xx.
    var isTransient: Bool {
        if code == .network { return true }
        guard let status else { return false }
        return status == 408 || status == 429 || status >= 500
    }
}
