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
    /// What the account may do on the instance (``Role/member`` unless an operator granted ``Role/owner``).
    public let role: Role

    /// Where the account is in its life.
    public enum Status: String, Sendable, Hashable, Codable {
        case pending, active, disabled
    }

    /// An account's role on the instance.
    public enum Role: String, Sendable, Hashable, Codable {
        /// A user of its tenant: its own records, devices and sessions.
        case member
        /// The instance owner: also the admin API (partners, webhooks, health and metrics). Granted from the
        /// server's shell (`earshot accounts grant-owner`), honoured only in the default tenant.
        case owner
    }

    enum CodingKeys: String, CodingKey {
        case id, email, phone, country, nickname, status, role
        case partnerID = "partner_id"
        case createdAt = "created_at"
        case verifiedAt = "verified_at"
    }

    /// The address the account signs in with.
    public var address: String { email ?? phone ?? "" }

    /// Whether this account administers the instance: the ``Role/owner`` role on an account of the instance's
    /// default tenant (an account of a partner's tenant is never an instance owner, whatever its row says).
    public var isInstanceOwner: Bool { role == .owner && partnerID == AccountDirectory.defaultTenant }
}
