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
    /// `partner` or `user`.
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

    enum Kind: String, Codable, Sendable {
        case partner
        case user
    }
}
