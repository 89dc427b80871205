/// The claims of an Earshot access token (RFC 7519 registered claims plus the tenant and the token kind).
///
/// Times are whole seconds since the Unix epoch, as RFC 7519 requires.
struct TokenClaims: Codable, Sendable, Equatable {
    /// Who issued the token (`earshot` unless configured).
    var iss: String
    /// The subject: the partner id for a partner token, the partner's user id for a user token.
    var sub: String
    /// The tenant: the partner the token acts for.
    var partner: String
    /// `partner`, `user` or `client_secret`.
    var kind: Kind
    /// Space-separated scopes (RFC 8693 style): what the token may do.
    var scope: String
    var iat: Int64
    var nbf: Int64
    var exp: Int64
    /// A unique token id (for logs and, later, revocation lists).
    var jti: String
    /// The partner's generation when the token was issued (``Partner/generation``); nil in tokens issued before
    /// generations existed, which count as generation 1.
    var gen: Int?
    /// Client secrets: the user the secret acts for (nil when a partner token minted it).
    var usr: String?
    /// Client secrets: the live session's settings given at minting (compact JSON of a `session` object).
    var session: String?

    enum Kind: String, Codable, Sendable {
        case partner
        case user
        /// A short-lived key for a browser or app that opens only the live endpoint (`GET /v1/realtime`), minted by
        /// a partner or user token; sent as `ek_<JWT>` (``TokenService/clientSecretPrefix``).
        case clientSecret = "client_secret"
    }
}
