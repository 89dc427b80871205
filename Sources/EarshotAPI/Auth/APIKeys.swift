/// `POST /open/partner/api-keys` (partner token): a long-lived key for scripts.
public struct APIKeyRequest: Codable, Sendable, Hashable {
    /// What the key is for (shown in lists), 1-100 characters.
    public var name: String
    /// What the key may do: `partner` (everything a partner token may), or any of `records:read`,
    /// `records:write`, `files:write`, `devices:bind`.
    public var scopes: [String]
    /// The user the key acts as (its records only); nil for a key of the partner.
    public var userID: String?
    /// Days until the key stops working; nil for a key that lasts until revoked.
    public var expiresInDays: Int?

    public init(name: String, scopes: [String], userID: String? = nil, expiresInDays: Int? = nil) {
        self.name = name
        self.scopes = scopes
        self.userID = userID
        self.expiresInDays = expiresInDays
    }

    enum CodingKeys: String, CodingKey {
        case name, scopes
        case userID = "user_id"
        case expiresInDays = "expires_in_days"
    }
}

/// An API key as listed (never with its secret).
public struct APIKey: Codable, Sendable, Hashable {
    public var keyID: String
    public var name: String
    public var scopes: [String]
    public var userID: String?
    /// The first characters of the key, to recognise it (`esk_AbCd`).
    public var prefix: String
    public var createdAtMs: Int64
    public var expiresAtMs: Int64?
    /// When it last authenticated a request (updated at most once a minute); nil if never.
    public var lastUsedAtMs: Int64?
    /// When it was revoked; a revoked key is refused at once.
    public var revokedAtMs: Int64?

    public init(
        keyID: String, name: String, scopes: [String], userID: String?, prefix: String, createdAtMs: Int64,
        expiresAtMs: Int64?, lastUsedAtMs: Int64?, revokedAtMs: Int64?
    ) {
        self.keyID = keyID
        self.name = name
        self.scopes = scopes
        self.userID = userID
        self.prefix = prefix
        self.createdAtMs = createdAtMs
        self.expiresAtMs = expiresAtMs
        self.lastUsedAtMs = lastUsedAtMs
        self.revokedAtMs = revokedAtMs
    }

    enum CodingKeys: String, CodingKey {
        case name, scopes, prefix
        case keyID = "key_id"
        case userID = "user_id"
        case createdAtMs = "created_at_ms"
        case expiresAtMs = "expires_at_ms"
        case lastUsedAtMs = "last_used_at_ms"
        case revokedAtMs = "revoked_at_ms"
    }
}

/// The answer to creating a key: the key (`esk_…`, shown this once; send it as `Authorization: Bearer <api_key>`)
/// and its listing.
public struct CreatedAPIKey: Codable, Sendable, Hashable {
    public var apiKey: String
    public var key: APIKey

    public init(apiKey: String, key: APIKey) {
        self.apiKey = apiKey
        self.key = key
    }

    enum CodingKeys: String, CodingKey {
        case key
        case apiKey = "api_key"
    }
}

/// `GET /open/partner/api-keys`: the partner's keys, newest first.
public struct APIKeyList: Codable, Sendable, Hashable {
    public var keys: [APIKey]

    public init(keys: [APIKey]) { self.keys = keys }
}
