extension APIPath {
    /// `GET` (no credential): countries with ISO codes, names and calling codes, for phone-number pickers.
    public static let accountCountries = "/open/accounts/countries"
    /// `POST` (no credential): create an account and send its verification code (202).
    public static let accountSignUp = "/open/accounts/sign-up"
    /// `POST` (no credential): check the verification code, activate the account and sign in.
    public static let accountVerify = "/open/accounts/verify"
    /// `POST` (no credential): send a new code (`purpose`: `verify` or `reset`) (202).
    public static let accountCodes = "/open/accounts/codes"
    /// `POST` (no credential): address + password → a session (bearer or cookie) and a user token.
    public static let accountSignIn = "/open/accounts/sign-in"
    /// `POST` (no credential): set a new password with a reset code.
    public static let accountPasswordReset = "/open/accounts/password/reset"
    /// `POST` (session): a fresh user access token for the session's account.
    public static let accountToken = "/open/accounts/token"
    /// `POST` (session): end this session.
    public static let accountSignOut = "/open/accounts/sign-out"
    /// `POST` (session): end every session of the account, this one included.
    public static let accountSignOutEverywhere = "/open/accounts/sign-out-everywhere"
    /// `GET` (session): the account; `PATCH`: set the nickname; `DELETE`: delete the account and its data.
    public static let accountMe = "/open/accounts/me"
    /// `PUT` (session): change the password (ends every other session).
    public static let accountPassword = "/open/accounts/password"
    /// `GET` (session): the account's signed-in devices.
    public static let accountSessions = "/open/accounts/sessions"
    /// `DELETE` (session): sign one device out.
    public static let accountSession = "/open/accounts/sessions/{session_id}"
    /// `GET` / `PUT` (partner token): whether this partner's users may sign up and sign in directly.
    public static let partnerAccountSettings = "/open/partner/accounts/settings"
}
