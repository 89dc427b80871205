/// A signed-in device: an opaque, revocable session, stored hashed.
public struct Session: Sendable, Hashable, Codable {
    /// `ses_…` (not the token: the token is shown once, at sign-in).
    public let id: String
    /// The account signed in.
    public let accountID: String
    /// The account's tenant.
    public let partnerID: String
    /// `bearer` (SDK, exchanged for user tokens) or `cookie` (the console, with CSRF protection).
    public let kind: Kind
    /// A name the client gave (`iPhone 15`, `Chrome on Linux`).
    public let device: String?
    /// The client's `User-Agent` at sign-in.
    public let userAgent: String?
    /// The client address at sign-in.
    public let ip: String?
    /// Unix milliseconds.
    public let createdAt: Int64
    /// Last use, recorded at most once a minute.
    public let lastUsedAt: Int64
    /// When it ends unless revoked earlier.
    public let expiresAt: Int64

    /// How the session is carried.
    public enum Kind: String, Sendable, Hashable, Codable {
        case bearer, cookie
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, device, ip
        case accountID = "account_id"
        case partnerID = "partner_id"
        case userAgent = "user_agent"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case expiresAt = "expires_at"
    }
}

/// A new session and its secrets, shown once.
public struct IssuedSession: Sendable, Hashable {
    /// The session as stored.
    public let session: Session
    /// `est_…`: the bearer token, or the cookie's value.
    public let token: String
    /// For cookie sessions: the value state-changing requests must repeat in `X-CSRF-Token`.
    public let csrfToken: String?
}
