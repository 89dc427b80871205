public import EarshotAPI
public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// For apps whose users have Earshot accounts (self-hosted instances, tenants that allow direct sign-in): sign up
/// with a code sent by email or SMS, sign in, keep the session, and get user tokens from it.
///
/// ```swift
/// let accounts = AccountClient(baseURL: url, sessionToken: keychain.read("earshot-session"))
/// _ = try await accounts.signUp(.email("ada@example.com"), password: password, nickname: "Ada")
/// let signedIn = try await accounts.verify(.email("ada@example.com"), code: codeTheUserTyped)
/// keychain.write("earshot-session", signedIn.sessionToken)
/// let client = EarshotClient(baseURL: url, tokenProvider: accounts.tokenProvider)  // records, uploads…
/// ```
///
/// The session token (``sessionToken``) is the long-lived secret: keep it in the keychain. Access tokens are short
/// (15 minutes by default); ``tokenProvider`` hands an ``EarshotClient`` a fresh one whenever the server refuses
/// the old. After ``signOut()`` (or a revoke from another device) the provider throws ``EarshotError/Code/unauthorized``:
/// sign in again. Thread-safe (an actor).
public actor AccountClient {
    private let client: EarshotClient
    /// The partner (tenant) to sign in to; nil for the instance's default tenant.
    public nonisolated let tenant: String?
    /// The current bearer session token (`est_…`), if signed in.
    public private(set) var sessionToken: String?

    /// A client for the server at `baseURL` (including any API prefix), optionally resuming a stored session.
    public init(baseURL: URL, tenant: String? = nil, sessionToken: String? = nil, session: URLSession = .shared) {
        self.client = EarshotClient(configuration: .init(baseURL: baseURL, session: session))
        self.tenant = tenant
        self.sessionToken = sessionToken
    }

    // MARK: Without a session

    /// `POST /open/accounts/sign-up`: creates a pending account and sends its code.
    public func signUp(_ login: AccountLogin, password: String, nickname: String? = nil) async throws -> CodeSent {
        let fields = login.fields
        return try await open(
            APIPath.accountSignUp,
            SignUpRequest(
                tenant: tenant, email: fields.email, phone: fields.phone, country: fields.country, password: password,
                nickname: nickname))
    }

    /// `POST /open/accounts/verify`: checks the code, activates the account and signs in (keeps the session).
    @discardableResult
    public func verify(_ login: AccountLogin, code: String, device: String? = nil) async throws -> SignInResponse {
        let fields = login.fields
        let response: SignInResponse = try await open(
            APIPath.accountVerify,
            VerifyRequest(
                tenant: tenant, email: fields.email, phone: fields.phone, country: fields.country, code: code,
                device: device))
        sessionToken = response.sessionToken
        return response
    }

    /// `POST /open/accounts/sign-in` (keeps the session).
    @discardableResult
    public func signIn(_ login: AccountLogin, password: String, device: String? = nil) async throws -> SignInResponse {
        let fields = login.fields
        let response: SignInResponse = try await open(
            APIPath.accountSignIn,
            SignInRequest(
                tenant: tenant, email: fields.email, phone: fields.phone, country: fields.country, password: password,
                device: device))
        sessionToken = response.sessionToken
        return response
    }

    /// `POST /open/accounts/codes`: a new code, `purpose` `verify` (pending sign-up) or `reset` (forgotten password).
    public func sendCode(_ login: AccountLogin, purpose: String) async throws -> CodeSent {
        let fields = login.fields
        return try await open(
            APIPath.accountCodes,
            CodeRequest(
                tenant: tenant, email: fields.email, phone: fields.phone, country: fields.country, purpose: purpose))
    }

    /// `POST /open/accounts/password/reset`: a new password with a reset code (every session ends).
    public func resetPassword(_ login: AccountLogin, code: String, newPassword: String) async throws {
        let fields = login.fields
        let _: Empty = try await open(
            APIPath.accountPasswordReset,
            PasswordResetRequest(
                tenant: tenant, email: fields.email, phone: fields.phone, country: fields.country, code: code,
                newPassword: newPassword))
    }

    /// `GET /open/accounts/countries`: the country table for a phone-number picker.
    public func countries() async throws -> [CountryInfo] {
        var request = APIRequest.get(APIPath.accountCountries)
        request.authenticated = false
        let list: CountryList = try await client.send(request)
        return list.countries
    }

    // MARK: With the session

    /// `POST /open/accounts/token`: a fresh user access token for the platform API.
    public func refresh() async throws -> TokenResponse {
        try await withSession(.init(method: "POST", path: APIPath.accountToken))
    }

    /// A ``TokenProvider`` for an ``EarshotClient``: a fresh access token from the session each time it is asked.
    public nonisolated var tokenProvider: TokenProvider {
        { [self] in try await self.refresh().accessToken }
    }

    /// `GET /open/accounts/me`.
    public func profile() async throws -> AccountProfile {
        try await withSession(.get(APIPath.accountMe))
    }

    /// `PATCH /open/accounts/me`: sets (or with nil clears) the nickname.
    public func setNickname(_ nickname: String?) async throws -> AccountProfile {
        try await withSession(try Self.json("PATCH", APIPath.accountMe, AccountUpdateRequest(nickname: nickname)))
    }

    /// `PUT /open/accounts/password`: every other session ends.
    public func changePassword(current: String, new: String) async throws {
        let _: Empty = try await withSession(
            try Self.json(
                "PUT", APIPath.accountPassword, PasswordChangeRequest(currentPassword: current, newPassword: new)))
    }

    /// `GET /open/accounts/sessions`: the signed-in devices, newest first.
    public func sessions() async throws -> [AccountSession] {
        let list: AccountSessionList = try await withSession(.get(APIPath.accountSessions))
        return list.sessions
    }

    /// `DELETE /open/accounts/sessions/{id}`: signs one device out.
    public func revokeSession(_ id: String) async throws {
        let path = APIPath.filled(APIPath.accountSession, ["session_id": id])
        let _: Empty = try await withSession(.init(method: "DELETE", path: path))
    }

    /// `POST /open/accounts/sign-out` (or `…/sign-out-everywhere`); forgets the session token.
    public func signOut(everywhere: Bool = false) async throws {
        let path = everywhere ? APIPath.accountSignOutEverywhere : APIPath.accountSignOut
        let _: Empty = try await withSession(.init(method: "POST", path: path))
        sessionToken = nil
    }

    /// `DELETE /open/accounts/me`: deletes the account and all its recordings; forgets the session token.
    public func deleteAccount(password: String) async throws {
        let _: Empty = try await withSession(
            try Self.json("DELETE", APIPath.accountMe, AccountDeletionRequest(password: password)))
        sessionToken = nil
    }

    // MARK: Transport

    private func open<Body: Encodable, T: Decodable>(_ path: String, _ body: Body) async throws -> T {
        var request = try APIRequest.post(path, json: body)
        request.authenticated = false
        return try await client.send(request)
    }

    private func withSession<T: Decodable>(_ request: APIRequest) async throws -> T {
        guard let sessionToken else {
            throw EarshotError(.unauthorized, "not signed in: call signIn or verify first")
        }
        let (data, response) = try await client.perform(request, token: sessionToken)
        if T.self == Empty.self { return Empty() as! T }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw EarshotError(
                .invalidResponse, "cannot decode \(T.self) from the answer to \(request.method) \(request.path)",
                status: response.statusCode, underlying: error)
        }
    }

    private static func json(_ method: String, _ path: String, _ body: some Encodable) throws -> APIRequest {
        var request = try APIRequest.post(path, json: body)
        request.method = method
        request.idempotent = method != "POST"
        return request
    }
}

/// How an account signs in: its email address or its phone number (E.164, with an optional ISO country code).
public enum AccountLogin: Sendable, Hashable {
    case email(String)
    case phone(String, country: String? = nil)

    var fields: (email: String?, phone: String?, country: String?) {
        switch self {
        case .email(let email): (email, nil, nil)
        case .phone(let phone, let country): (nil, phone, country)
        }
    }
}
