/// A partner: a tenant of the platform, whose backend holds client credentials.
public struct Partner: Sendable, Equatable, Decodable {
    /// The partner id, also its OAuth `client_id` (`ptn_…`).
    public let id: String
    /// A human name, for listings.
    public let name: String
    /// `active` or `disabled` (a disabled partner cannot get tokens, and its tokens stop working).
    public let status: String
    /// Unix milliseconds.
    public let createdAt: Int64
    /// Bumped each time the partner is disabled: tokens and signed URLs carry the generation they were issued in
    /// and stop working when it changes, so re-enabling a partner does not revive them.
    public let generation: Int

    enum CodingKeys: String, CodingKey {
        case id, name, status, generation
        case createdAt = "created_at"
    }

    public var isActive: Bool { status == "active" }
}

/// The columns a ``Partner`` decodes from.
extension Partner {
    static let columns = "id, name, status, created_at, generation"
}

/// What `earshot partners create` prints once: the credentials of a new partner.
public struct PartnerCredentials: Sendable, Equatable {
    public let partner: Partner
    /// The OAuth client id (same as ``Partner/id``).
    public var clientID: String { partner.id }
    /// The client secret. Earshot keeps only a hash of it: it cannot be shown again.
    public let clientSecret: String
}
