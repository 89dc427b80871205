/// An account as its owner sees it.
public struct AccountProfile: Codable, Sendable, Hashable {
    /// `acc_…`: also the user id of the account's records and tokens.
    public var id: String
    /// The tenant.
    public var tenant: String
    public var email: String?
    public var phone: String?
    public var country: String?
    public var nickname: String?
    /// `pending`, `active` or `disabled`.
    public var status: String
    public var createdAtMs: Int64
    public var verifiedAtMs: Int64?
    /// Whether the account owns the instance (the admin API and the console's Admin page); granted from the
    /// server's shell with `earshot accounts grant-owner`.
    public var instanceOwner: Bool

    public init(
        id: String, tenant: String, email: String?, phone: String?, country: String?, nickname: String?,
        status: String, createdAtMs: Int64, verifiedAtMs: Int64?, instanceOwner: Bool = false
    ) {
        self.instanceOwner = instanceOwner
        self.id = id
        self.tenant = tenant
        self.email = email
        self.phone = phone
        self.country = country
        self.nickname = nickname
        self.status = status
        self.createdAtMs = createdAtMs
        self.verifiedAtMs = verifiedAtMs
    }

    enum CodingKeys: String, CodingKey {
        case id, tenant, email, phone, country, nickname, status
        case createdAtMs = "created_at_ms"
        case verifiedAtMs = "verified_at_ms"
        case instanceOwner = "instance_owner"
    }

    /// Decodes an answer of a server from before `instance_owner` too (as false).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        tenant = try container.decode(String.self, forKey: .tenant)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        phone = try container.decodeIfPresent(String.self, forKey: .phone)
        country = try container.decodeIfPresent(String.self, forKey: .country)
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        status = try container.decode(String.self, forKey: .status)
        createdAtMs = try container.decode(Int64.self, forKey: .createdAtMs)
        verifiedAtMs = try container.decodeIfPresent(Int64.self, forKey: .verifiedAtMs)
        instanceOwner = try container.decodeIfPresent(Bool.self, forKey: .instanceOwner) ?? false
    }
}

/// A code was sent (202): where to (masked), how long it lives, when another may be asked for.
public struct CodeSent: Codable, Sendable, Hashable {
    public var accountID: String?
    /// `email` or `sms`.
    public var channel: String?
    /// The destination with most of it hidden (`j•••@example.com`).
    public var destination: String?
    public var expiresIn: Int?
    public var resendAfter: Int?
    /// For humans.
    public var message: String

    public init(
        accountID: String?, channel: String?, destination: String?, expiresIn: Int?, resendAfter: Int?,
        message: String
    ) {
        self.accountID = accountID
        self.channel = channel
        self.destination = destination
        self.expiresIn = expiresIn
        self.resendAfter = resendAfter
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case channel, destination, message
        case accountID = "account_id"
        case expiresIn = "expires_in"
        case resendAfter = "resend_after"
    }
}

/// A signed-in device.
public struct AccountSession: Codable, Sendable, Hashable {
    /// `ses_…`.
    public var id: String
    /// `bearer` or `cookie`.
    public var kind: String
    public var device: String?
    public var userAgent: String?
    public var ip: String?
    public var createdAtMs: Int64
    public var lastUsedAtMs: Int64
    public var expiresAtMs: Int64
    /// True for the session making the request.
    public var current: Bool

    public init(
        id: String, kind: String, device: String?, userAgent: String?, ip: String?, createdAtMs: Int64,
        lastUsedAtMs: Int64, expiresAtMs: Int64, current: Bool
    ) {
        self.id = id
        self.kind = kind
        self.device = device
        self.userAgent = userAgent
        self.ip = ip
        self.createdAtMs = createdAtMs
        self.lastUsedAtMs = lastUsedAtMs
        self.expiresAtMs = expiresAtMs
        self.current = current
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, device, ip, current
        case userAgent = "user_agent"
        case createdAtMs = "created_at_ms"
        case lastUsedAtMs = "last_used_at_ms"
        case expiresAtMs = "expires_at_ms"
    }
}

/// `GET /open/accounts/sessions`.
public struct AccountSessionList: Codable, Sendable, Hashable {
    public var sessions: [AccountSession]

    public init(sessions: [AccountSession]) {
        self.sessions = sessions
    }
}

/// A successful sign-in (or verification): the account, its new session and a user access token.
///
/// A bearer session's `session_token` is shown only here: keep it in the device's keychain and exchange it for
/// fresh access tokens at `POST /open/accounts/token`. A cookie session's token is in the `Set-Cookie` header
/// instead, and `csrf_token` must accompany every state-changing request as `X-CSRF-Token`.
public struct SignInResponse: Codable, Sendable, Hashable {
    public var account: AccountProfile
    public var session: AccountSession
    /// `est_…` (bearer sessions only).
    public var sessionToken: String?
    /// Cookie sessions only.
    public var csrfToken: String?
    /// A user token for the platform API (`Authorization: Bearer`).
    public var accessToken: String
    public var tokenType: String
    /// Seconds until `access_token` expires.
    public var expiresIn: Int

    public init(
        account: AccountProfile, session: AccountSession, sessionToken: String?, csrfToken: String?,
        accessToken: String, tokenType: String = "bearer", expiresIn: Int
    ) {
        self.account = account
        self.session = session
        self.sessionToken = sessionToken
        self.csrfToken = csrfToken
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
    }

    enum CodingKeys: String, CodingKey {
        case account, session
        case sessionToken = "session_token"
        case csrfToken = "csrf_token"
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
    }
}

/// One country of `GET /open/accounts/countries`.
public struct CountryInfo: Codable, Sendable, Hashable {
    /// ISO 3166-1 alpha-2 (`US`).
    public var code: String
    /// English short name.
    public var name: String
    /// With `+` (`+1`).
    public var dialCode: String
    /// Possible lengths of the number after the dialling code.
    public var nationalNumberLengths: [Int]

    public init(code: String, name: String, dialCode: String, nationalNumberLengths: [Int]) {
        self.code = code
        self.name = name
        self.dialCode = dialCode
        self.nationalNumberLengths = nationalNumberLengths
    }

    enum CodingKeys: String, CodingKey {
        case code, name
        case dialCode = "dial_code"
        case nationalNumberLengths = "national_number_lengths"
    }
}

/// `GET /open/accounts/countries`.
public struct CountryList: Codable, Sendable, Hashable {
    public var countries: [CountryInfo]

    public init(countries: [CountryInfo]) {
        self.countries = countries
    }
}
