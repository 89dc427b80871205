/// The one error of EarshotAccounts: a stable code, a message that says what was wrong and how to fix it, the
/// request field at fault (for bad input) and, for rate limits, when to retry.
///
/// The server maps ``Code`` to an HTTP status and wire code in its error table.
public struct AccountError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is (extensible).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case invalidArgument, unauthorized, forbidden, notFound, conflict, rateLimited, unavailable, `internal`
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A field is missing, malformed or refused (weak password, unknown country, look-alike character…).
        public static let invalidArgument = Code(.invalidArgument)
        /// Wrong address or password, or an invalid, expired or revoked session.
        public static let unauthorized = Code(.unauthorized)
        /// The account may not do this yet or any more (unverified, disabled; the tenant does not allow sign-in).
        public static let forbidden = Code(.forbidden)
        /// No such account, session or code.
        public static let notFound = Code(.notFound)
        /// The address is taken; a code was already used.
        public static let conflict = Code(.conflict)
        /// Too many attempts or codes; retry after ``AccountError/retryAfter`` seconds.
        public static let rateLimited = Code(.rateLimited)
        /// A delivery channel (SMTP server, SMS gateway) failed; retry later.
        public static let unavailable = Code(.unavailable)
        /// A fault inside Earshot or a C library (the message names the function).
        public static let `internal` = Code(.internal)

        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What was wrong and how to fix it; starts with the field for bad input.
    public let message: String
    /// The request field the error is about (`email`, `phone`, `country`, `password`, `code`…), if any.
    public let field: String?
    /// Seconds to wait before retrying, for ``Code/rateLimited``.
    public let retryAfter: Int?
    /// The lower-level cause.
    public let underlying: (any Error & Sendable)?

    /// An error with `code` and `message`, optionally naming the field, the seconds to wait, and the cause.
    public init(
        _ code: Code, _ message: String, field: String? = nil, retryAfter: Int? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.field = field
        self.retryAfter = retryAfter
        self.underlying = underlying
    }

    public var description: String { "\(code): \(message)" }

    /// A refused field: the message starts with the field's name, so a client can show it next to the input.
    static func invalid(_ field: String, _ message: String) -> AccountError {
        AccountError(.invalidArgument, "\(field): \(message)", field: field)
    }
}
