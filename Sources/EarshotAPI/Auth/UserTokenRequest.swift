/// `POST /open/partner/user-token` (partner token required): a short-lived token for one of the partner's users.
///
/// The user token is the only credential an app ever holds: it can upload files and read and write its own
/// user's records, nothing else.
public struct UserTokenRequest: Codable, Sendable, Hashable {
    /// The partner's own identifier for the user (1–128 characters of `[A-Za-z0-9._@:-]`).
    public var userID: String
    /// Requested lifetime in seconds; capped by the server's `user-token-ttl` (the default when absent).
    public var ttlSeconds: Int?

    public init(userID: String, ttlSeconds: Int? = nil) {
        self.userID = userID
        self.ttlSeconds = ttlSeconds
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case ttlSeconds = "ttl_seconds"
    }
}
