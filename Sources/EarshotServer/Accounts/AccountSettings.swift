public import EarshotAccounts

/// The accounts settings of `earshot serve` (``ServerConfiguration/accounts``): codes, sessions, password hashing,
/// delivery channels and rate limits.
public struct AccountSettings: Sendable, Equatable {
    /// Lifetime of user tokens exchanged from sessions (short, so a revoked session stops working soon).
    public var tokenTTL: Duration = .seconds(900)
    /// Lifetime of a session.
    public var sessionTTL: Duration = .seconds(30 * 86400)
    /// Lifetime of a verification or reset code.
    public var codeTTL: Duration = .seconds(600)
    /// Wait before another code may be sent for the same purpose.
    public var codeResendInterval: Duration = .seconds(60)
    /// Wrong tries before a code locks.
    public var codeAttempts = 5
    /// Argon2id cost of new password hashes (stored hashes below it are upgraded at sign-in).
    public var argon2 = Argon2Parameters.owaspMinimum
    /// `smtp://host:port` (STARTTLS) or `smtps://…`; nil writes email codes to the log.
    public var smtpURL: String?
    /// The envelope and `From:` address (required with ``smtpURL``).
    public var smtpFrom: String?
    /// SMTP AUTH user.
    public var smtpUsername: String?
    /// SMTP AUTH password.
    public var smtpPassword: String?
    /// STARTTLS on `smtp://`.
    public var smtpStartTLS = SMTPMailer.StartTLS.required
    /// PEM certificate authorities to trust instead of the system's.
    public var smtpCAFile: String?
    /// The SMS provider's endpoint; nil writes SMS codes to the log.
    public var smsURL: String?
    /// Bearer token for ``smsURL``.
    public var smsToken: String?
    /// Sender id or number sent as `from`.
    public var smsFrom: String?
    /// Sign-up, sign-in, code and reset requests per client IP.
    public var ipLimit = "30/1m"
    /// Sign-in attempts, codes and code checks per address.
    public var addressLimit = "10/15m"
    /// Password checks and token exchanges per account.
    public var accountLimit = "60/15m"

    /// The defaults above.
    public init() {}
}
