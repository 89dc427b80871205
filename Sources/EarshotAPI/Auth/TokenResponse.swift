/// An access token (`{"access_token":"eyJ…","token_type":"bearer","expires_in":86400}`), for partners and users.
///
/// Send it as `Authorization: Bearer <access_token>`. When it expires (401 `UNAUTHORIZED`), get a new one.
public struct TokenResponse: Codable, Sendable, Hashable {
    /// The signed token (a JWT; treat it as opaque).
    public var accessToken: String
    /// Always `bearer`.
    public var tokenType: String
    /// Seconds until the token expires.
    public var expiresIn: Int

    public init(accessToken: String, tokenType: String = "bearer", expiresIn: Int) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
    }
}
