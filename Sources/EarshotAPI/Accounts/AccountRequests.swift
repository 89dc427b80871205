/// `POST /open/accounts/sign-up`: an email address or an E.164 phone number (with its country), a password and an
/// optional nickname.
public struct SignUpRequest: Codable, Sendable, Hashable {
    /// The partner (tenant) to join; the instance's default tenant when absent.
    public var tenant: String?
    public var email: String?
    /// E.164 (`+14155550123`).
    public var phone: String?
    /// ISO 3166-1 alpha-2 code of the phone number's country (`US`); optional, checked when given.
    public var country: String?
    public var password: String
    public var nickname: String?

    public init(
        tenant: String? = nil, email: String? = nil, phone: String? = nil, country: String? = nil, password: String,
        nickname: String? = nil
    ) {
        self.tenant = tenant
        self.email = email
        self.phone = phone
        self.country = country
        self.password = password
        self.nickname = nickname
    }
}

/// `POST /open/accounts/verify`: the 6-digit code sent to the address, and the session to start.
public struct VerifyRequest: Codable, Sendable, Hashable {
    public var tenant: String?
    public var email: String?
    public var phone: String?
    public var country: String?
    public var code: String
    /// `bearer` (default: a session token for SDKs) or `cookie` (the console).
    public var session: String?
    /// A name for this device, shown in the session list.
    public var device: String?

    public init(
        tenant: String? = nil, email: String? = nil, phone: String? = nil, country: String? = nil, code: String,
        session: String? = nil, device: String? = nil
    ) {
        self.tenant = tenant
        self.email = email
        self.phone = phone
        self.country = country
        self.code = code
        self.session = session
        self.device = device
    }
}

/// `POST /open/accounts/codes`: send a new code to the address.
public struct CodeRequest: Codable, Sendable, Hashable {
    public var tenant: String?
    public var email: String?
    public var phone: String?
    public var country: String?
    /// `verify` (a pending sign-up) or `reset` (a forgotten password).
    public var purpose: String

    public init(
        tenant: String? = nil, email: String? = nil, phone: String? = nil, country: String? = nil, purpose: String
    ) {
        self.tenant = tenant
        self.email = email
        self.phone = phone
        self.country = country
        self.purpose = purpose
    }
}

/// `POST /open/accounts/sign-in`.
public struct SignInRequest: Codable, Sendable, Hashable {
    public var tenant: String?
    public var email: String?
    public var phone: String?
    public var country: String?
    public var password: String
    /// `bearer` (default) or `cookie`.
    public var session: String?
    public var device: String?

    public init(
        tenant: String? = nil, email: String? = nil, phone: String? = nil, country: String? = nil, password: String,
        session: String? = nil, device: String? = nil
    ) {
        self.tenant = tenant
        self.email = email
        self.phone = phone
        self.country = country
        self.password = password
        self.session = session
        self.device = device
    }
}

/// `POST /open/accounts/password/reset`: a reset code and the new password. Ends every session.
public struct PasswordResetRequest: Codable, Sendable, Hashable {
    public var tenant: String?
    public var email: String?
    public var phone: String?
    public var country: String?
    public var code: String
    public var newPassword: String

    public init(
        tenant: String? = nil, email: String? = nil, phone: String? = nil, country: String? = nil, code: String,
        newPassword: String
    ) {
        self.tenant = tenant
        self.email = email
        self.phone = phone
        self.country = country
        self.code = code
        self.newPassword = newPassword
    }

    enum CodingKeys: String, CodingKey {
        case tenant, email, phone, country, code
        case newPassword = "new_password"
    }
}

/// `PUT /open/accounts/password` (session): the current password and the new one. Ends every other session.
public struct PasswordChangeRequest: Codable, Sendable, Hashable {
    public var currentPassword: String
    public var newPassword: String

    public init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }

    enum CodingKeys: String, CodingKey {
        case currentPassword = "current_password"
        case newPassword = "new_password"
    }
}

/// `PATCH /open/accounts/me` (session): a new nickname (null or empty clears it).
public struct AccountUpdateRequest: Codable, Sendable, Hashable {
    public var nickname: String?

    public init(nickname: String?) {
        self.nickname = nickname
    }
}

/// `DELETE /open/accounts/me` (session): the password, confirming the deletion of the account and all its data.
public struct AccountDeletionRequest: Codable, Sendable, Hashable {
    public var password: String
    /// Must be `true`.
    public var confirm: Bool

    public init(password: String, confirm: Bool = true) {
        self.password = password
        self.confirm = confirm
    }
}

/// `GET`/`PUT /open/partner/accounts/settings` (partner token).
public struct PartnerAccountSettings: Codable, Sendable, Hashable {
    /// Whether the partner's users may sign up and sign in through `/open/accounts/*` (with `tenant` = the partner
    /// id). Off by default: the partner's backend signs its users in and issues their tokens.
    public var directSignIn: Bool

    public init(directSignIn: Bool) {
        self.directSignIn = directSignIn
    }

    enum CodingKeys: String, CodingKey {
        case directSignIn = "direct_sign_in"
    }
}
