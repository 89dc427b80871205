/// `POST /open/partner/token`: a partner's client credentials, exchanged for a partner access token.
///
/// Only a partner's own backend holds these; they never go into an app.
public struct PartnerTokenRequest: Codable, Sendable, Hashable {
    /// The partner's client id, printed once by `earshot partners create`.
    public var clientID: String
    /// The partner's client secret, printed once by `earshot partners create`.
    public var clientSecret: String

    public init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
    }
}
