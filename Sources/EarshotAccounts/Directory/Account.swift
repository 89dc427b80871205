/// An account: a user of a tenant who signs in with an email address or phone number and a password.
///
/// ``id`` is the user id everywhere else (records, voiceprints, user tokens), so an account's recordings are its
/// user's records and the library's isolation rules apply unchanged.
public struct Account: Sendable, Hashable, Codable {
    /// `acc_…`; also the account's user id.
    public let id: String
    /// The tenant (partner id).
    public let partnerID: String
    /// The normalised email address, for email accounts.
    public let email: String?
    /// The E.164 phone number, for phone accounts.
    public let phone: String?
    /// ISO 3166-1 alpha-2 code of the phone number's country, when known.
    public let country: String?
    /// A display name (1-64 visible characters), if set.
    public let nickname: String?
    /// `pending` (address not verified yet), `active` or `disabled`.
    public let status: Status
    /// Unix milliseconds.
    public let createdAt: Int64
    /// When the address was verified (Unix milliseconds).
    public let verifiedAt: Int64?

    /// Where the account is in its life.
    public enum Status: String, Sendable, Hashable, Codable {
        case pending, active, disabled
    }

    enum CodingKeys: String, CodingKey {
        case id, email, phone, country, nickname, status
        case partnerID = "partner_id"
        case createdAt = "created_at"
        case verifiedAt = "verified_at"
    }

    /// The address the account signs in with.
    public var address: String { email ?? phone ?? "" }
}
