/// The error of the platform API (auth, partners, uploads): a stable code and a message that says what was
/// wrong and how to fix it. ``ErrorTable`` maps it to the HTTP status and wire code.
public struct PlatformError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is (extensible).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case invalidArgument, unauthorized, forbidden, notFound, conflict, payloadTooLarge, rateLimited
            case bindOccupied, deviceNotFound, deviceOffline, ownerRequired
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The request is malformed or contradicts the upload (400).
        public static let invalidArgument = Code(.invalidArgument)
        /// Missing, expired, forged or otherwise invalid credentials (401).
        public static let unauthorized = Code(.unauthorized)
        /// Valid credentials that may not do this, or a bad signed URL (403).
        public static let forbidden = Code(.forbidden)
        /// No such resource for this caller (404), including other tenants' resources.
        public static let notFound = Code(.notFound)
        /// The resource is in a state that does not allow this (409).
        public static let conflict = Code(.conflict)
        /// A declared or sent size exceeds a limit (413).
        public static let payloadTooLarge = Code(.payloadTooLarge)
        /// The server is saturated; retry after ``PlatformError/retryAfter`` seconds (429).
        public static let rateLimited = Code(.rateLimited)
        /// The device is bound to another user, of this tenant or another (409 `BIND_OCCUPIED`).
        public static let bindOccupied = Code(.bindOccupied)
        /// No such device for this caller (404 `DEVICE_NOT_FOUND`), including another tenant's or user's.
        public static let deviceNotFound = Code(.deviceNotFound)
        /// The device has not reported within the online window, so it cannot take part now (409 `DEVICE_OFFLINE`).
        public static let deviceOffline = Code(.deviceOffline)

        /// Valid credentials that are not the instance owner's account session, on an admin route (403
        /// `OWNER_REQUIRED`).
        public static let ownerRequired = Code(.ownerRequired)

        public var description: String { base.rawValue }
    }

    public let code: Code
    public let message: String
    /// Seconds the client should wait before retrying (sent as `Retry-After`), for ``Code/rateLimited``.
    public let retryAfter: Int?

    public init(_ code: Code, _ message: String, retryAfter: Int? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code): \(message)" }

    static func invalidArgument(_ message: String) -> PlatformError { .init(.invalidArgument, message) }
    static func unauthorized(_ message: String) -> PlatformError { .init(.unauthorized, message) }
    static func forbidden(_ message: String) -> PlatformError { .init(.forbidden, message) }
    static func notFound(_ message: String) -> PlatformError { .init(.notFound, message) }
    static func conflict(_ message: String) -> PlatformError { .init(.conflict, message) }
    static func payloadTooLarge(_ message: String) -> PlatformError { .init(.payloadTooLarge, message) }
    static func bindOccupied(_ message: String) -> PlatformError { .init(.bindOccupied, message) }
    static func deviceNotFound(_ message: String) -> PlatformError { .init(.deviceNotFound, message) }
    static func deviceOffline(_ message: String) -> PlatformError { .init(.deviceOffline, message) }
    /// What every admin route answers a caller that is not the instance owner.
    static let ownerRequired = PlatformError(
        .ownerRequired,
        "only the instance owner may do this: sign in with the owner's account (an operator grants the role on the "
            + "server with 'earshot accounts grant-owner ACCOUNT_ID'); partner and user tokens never reach admin "
            + "routes")
    static func rateLimited(_ message: String, retryAfter: Int) -> PlatformError {
        .init(.rateLimited, message, retryAfter: retryAfter)
    }
}
