import EarshotAPI
import EarshotAccounts
import EarshotCore
import EarshotHTTP
import Foundation

/// The accounts API (`/open/accounts/*`): sign-up with a code, sign-in to a bearer or cookie session, user tokens
/// from sessions, sign-out (one device, everywhere), passwords, profile, deletion, the country table; and the
/// partner's direct-sign-in setting (`/open/partner/accounts/settings`). docs/accounts.md describes the flows.
///
/// Requests that a stranger can make are rate-limited per client IP and per address; those of a signed-in account
/// per account. Accounts live in a tenant: `tenant` in a request names it (the instance's default tenant when
/// absent), and it must allow direct sign-in.
struct AccountRoutes: Sendable {
    let directory: AccountDirectory
    let tokens: TokenService
    let data: AccountData
    let limits: AccountLimits
    /// Lifetime of user tokens minted from sessions.
    let tokenTTL: Duration
    /// Cookies carry `Secure` (the server is reached over HTTPS).
    let secureCookies: Bool
    /// Cookies are sent for this path (the API prefix, or `/`).
    let cookiePath: String

    func register(on api: APIRoutes) {
        api.open(.get, APIPath.accountCountries) { _, _ in
            let countries = Country.all.map {
                CountryInfo(
                    code: $0.code, name: $0.name, dialCode: "+" + $0.callingCode,
                    nationalNumberLengths: $0.nationalNumberLengths)
            }
            return try .json(CountryList(countries: countries), headers: ["Cache-Control": "public, max-age=86400"])
        }
        api.open(.post, APIPath.accountSignUp) { request, _ in
            try limits.ip.check(request.remoteAddress)
            let body = try request.decode(SignUpRequest.self)
            let tenant = try await tenant(body.tenant)
            let address = try AccountAddress.parse(email: body.email, phone: body.phone, country: body.country)
            try limits.address.check(tenant + " " + address.value)
            let ticket = try await directory.signUp(
                tenant: tenant, address: address, password: body.password, nickname: body.nickname)
            return try .json(Self.sent(ticket), status: .accepted)
        }
        api.open(.post, APIPath.accountVerify) { request, _ in
            try limits.ip.check(request.remoteAddress)
            let body = try request.decode(VerifyRequest.self)
            let tenant = try await tenant(body.tenant)
            let address = try AccountAddress.parse(email: body.email, phone: body.phone, country: body.country)
            let kind = try Self.sessionKind(body.session)
            try limits.address.check(tenant + " " + address.value)
            let account = try await directory.verify(tenant: tenant, address: address, code: body.code)
            return try await signedIn(account, kind: kind, device: body.device, request: request)
        }
        api.open(.post, APIPath.accountCodes) { request, _ in
            try limits.ip.check(request.remoteAddress)
            let body = try request.decode(CodeRequest.self)
            let tenant = try await tenant(body.tenant)
            let address = try AccountAddress.parse(email: body.email, phone: body.phone, country: body.country)
            try limits.address.check(tenant + " " + address.value)
            let ticket = try await directory.resendCode(tenant: tenant, address: address, purpose: body.purpose)
            return try .json(ticket.map(Self.sent) ?? Self.sentIfKnown, status: .accepted)
        }
        api.open(.post, APIPath.accountSignIn) { request, _ in
            try limits.ip.check(request.remoteAddress)
            let body = try request.decode(SignInRequest.self)
            let tenant = try await tenant(body.tenant)
            let address = try AccountAddress.parse(email: body.email, phone: body.phone, country: body.country)
            let kind = try Self.sessionKind(body.session)
            try limits.address.check(tenant + " " + address.value)
            let account = try await directory.signIn(tenant: tenant, address: address, password: body.password)
            return try await signedIn(account, kind: kind, device: body.device, request: request)
        }
        api.open(.post, APIPath.accountPasswordReset) { request, _ in
            try limits.ip.check(request.remoteAddress)
            let body = try request.decode(PasswordResetRequest.self)
            let tenant = try await tenant(body.tenant)
            let address = try AccountAddress.parse(email: body.email, phone: body.phone, country: body.country)
            try limits.address.check(tenant + " " + address.value)
            _ = try await directory.resetPassword(
                tenant: tenant, address: address, code: body.code, newPassword: body.newPassword)
            return .empty()
        }
        api.post(APIPath.accountToken, .session) { _, _, caller in
            let accountID = try Self.account(of: caller)
            try limits.account.check(accountID)
            return try .json(try await userToken(caller), headers: ["Cache-Control": "no-store"])
        }
        api.post(APIPath.accountSignOut, .session) { _, _, caller in
            _ = try await directory.revokeSession(caller.tokenID, of: try Self.account(of: caller))
            return .empty(headers: clearedCookies)
        }
        api.post(APIPath.accountSignOutEverywhere, .session) { _, _, caller in
            try await directory.revokeSessions(of: try Self.account(of: caller), except: nil)
            return .empty(headers: clearedCookies)
        }
        api.get(APIPath.accountMe, .session) { _, _, caller in
            guard let account = try await directory.account(try Self.account(of: caller)) else {
                throw PlatformError.unauthorized("the account no longer exists")
            }
            return try .json(Self.profile(account))
        }
        api.patch(APIPath.accountMe, .session) { request, _, caller in
            let body = try request.decode(AccountUpdateRequest.self)
            let account = try await directory.setNickname(accountID: try Self.account(of: caller), body.nickname)
            return try .json(Self.profile(account))
        }
        api.delete(APIPath.accountMe, .session) { request, _, caller in
            let body = try request.decode(AccountDeletionRequest.self)
            guard body.confirm else {
                throw PlatformError.invalidArgument(
                    "confirm: must be true; deleting an account deletes its recordings, transcripts and voiceprints "
                        + "for good")
            }
            let accountID = try Self.account(of: caller)
            try limits.account.check(accountID)
            try await directory.confirmPassword(accountID: accountID, password: body.password)
            try await data.deleteAll(of: caller)
            try await directory.remove(accountID: accountID)
            return .empty(headers: clearedCookies)
        }
        api.put(APIPath.accountPassword, .session) { request, _, caller in
            let body = try request.decode(PasswordChangeRequest.self)
            let accountID = try Self.account(of: caller)
            try limits.account.check(accountID)
            try await directory.changePassword(
                accountID: accountID, current: body.currentPassword, new: body.newPassword,
                keepingSession: caller.tokenID)
            return .empty()
        }
        api.get(APIPath.accountSessions, .session) { _, _, caller in
            let sessions = try await directory.sessions(of: try Self.account(of: caller))
            return try .json(AccountSessionList(sessions: sessions.map { Self.wire($0, current: caller.tokenID) }))
        }
        api.delete(APIPath.accountSession, .session) { _, context, caller in
            let id = try context.parameters.require("session_id")
            guard try await directory.revokeSession(id, of: try Self.account(of: caller)) else {
                throw PlatformError.notFound("no signed-in session \(id) of this account")
            }
            return .empty(headers: id == caller.tokenID ? clearedCookies : [:])
        }
        api.get(APIPath.partnerAccountSettings, .partner) { _, _, caller in
            let enabled = try await directory.allowsDirectSignIn(caller.partnerID)
            return try .json(PartnerAccountSettings(directSignIn: enabled))
        }
        api.put(APIPath.partnerAccountSettings, .partner) { request, _, caller in
            let body = try request.decode(PartnerAccountSettings.self)
            try await directory.setDirectSignIn(caller.partnerID, body.directSignIn)
            return try .json(body)
        }
    }

    // MARK: Sessions and tokens

    /// Starts the session and answers with it and a user token (and, for a cookie session, its cookies).
    private func signedIn(_ account: Account, kind: Session.Kind, device: String?, request: Request) async throws
        -> Response
    {
        let issued = try await directory.startSession(
            for: account, kind: kind, device: device, ip: request.remoteAddress.isEmpty ? nil : request.remoteAddress,
            userAgent: request.headers["User-Agent"])
        let principal = Principal(
            partnerID: account.partnerID, userID: account.id, scopes: Set(Scope.user.map(\.rawValue)),
            tokenID: issued.session.id)
        let token = try await userToken(principal)
        let body = SignInResponse(
            account: Self.profile(account), session: Self.wire(issued.session, current: issued.session.id),
            sessionToken: kind == .bearer ? issued.token : nil, csrfToken: issued.csrfToken,
            accessToken: token.accessToken, expiresIn: token.expiresIn)
        var headers: HTTPHeaders = ["Cache-Control": "no-store"]
        if kind == .cookie, let csrf = issued.csrfToken {
            let maxAge = Int((issued.session.expiresAt - issued.session.createdAt) / 1000)
            headers.add(
                name: "Set-Cookie",
                value: cookie(SessionCredentials.cookieName, issued.token, maxAge: maxAge, httpOnly: true))
            headers.add(
                name: "Set-Cookie",
                value: cookie(SessionCredentials.csrfCookieName, csrf, maxAge: maxAge, httpOnly: false))
        }
        return try .json(body, headers: headers)
    }

    /// A user token for the session's account, living `account-token-ttl`.
    private func userToken(_ caller: Principal) async throws -> TokenResponse {
        let ttl = Int(tokenTTL.components.seconds)
        // The tenant's current generation: disabling the partner revokes these tokens with its own.
        let generation = try await tokens.partners.partner(caller.partnerID)?.generation ?? 1
        let token = try await tokens.sign(
            subject: try Self.account(of: caller), partner: caller.partnerID, kind: .user, scopes: Scope.user,
            ttlSeconds: ttl, generation: generation)
        return TokenResponse(accessToken: token, expiresIn: ttl)
    }

    /// A session cookie. The session cookie is scoped to the API (`Path` = `api-prefix`); the CSRF cookie to the
    /// whole site (`Path=/`), so the console's pages at `/` can read it and repeat it in `X-CSRF-Token`.
    private func cookie(_ name: String, _ value: String, maxAge: Int, httpOnly: Bool) -> String {
        "\(name)=\(value); Path=\(httpOnly ? cookiePath : "/"); Max-Age=\(maxAge); SameSite=Strict"
            + (httpOnly ? "; HttpOnly" : "") + (secureCookies ? "; Secure" : "")
    }

    /// Headers that delete both session cookies.
    private var clearedCookies: HTTPHeaders {
        var headers = HTTPHeaders()
        for name in [SessionCredentials.cookieName, SessionCredentials.csrfCookieName] {
            headers.add(
                name: "Set-Cookie", value: cookie(name, "", maxAge: 0, httpOnly: name == SessionCredentials.cookieName))
        }
        return headers
    }

    // MARK: Requests

    /// The tenant a request names (the default tenant when none), which must allow direct sign-in.
    private func tenant(_ requested: String?) async throws -> String {
        let tenant = requested ?? AccountDirectory.defaultTenant
        guard Identifier.isValid(tenant, prefix: "ptn") else {
            throw PlatformError.invalidArgument("tenant: '\(tenant)' is not a partner id (ptn_…)")
        }
        guard try await directory.allowsDirectSignIn(tenant) else {
            throw PlatformError.forbidden(
                "tenant: \(tenant) does not let its users sign in here; its app signs users in through its backend")
        }
        return tenant
    }

    private static func sessionKind(_ text: String?) throws -> Session.Kind {
        guard let text else { return .bearer }
        guard let kind = Session.Kind(rawValue: text) else {
            throw PlatformError.invalidArgument("session: '\(text)' is not bearer or cookie")
        }
        return kind
    }

    private static func account(of caller: Principal) throws -> String {
        guard let id = caller.userID else { throw PlatformError.forbidden("this needs an account session") }
        return id
    }

    // MARK: Wire shapes

    static func profile(_ account: Account) -> AccountProfile {
        AccountProfile(
            id: account.id, tenant: account.partnerID, email: account.email, phone: account.phone,
            country: account.country, nickname: account.nickname, status: account.status.rawValue,
            createdAtMs: account.createdAt, verifiedAtMs: account.verifiedAt, instanceOwner: account.isInstanceOwner)
    }

    static func wire(_ session: Session, current: String) -> AccountSession {
        AccountSession(
            id: session.id, kind: session.kind.rawValue, device: session.device, userAgent: session.userAgent,
            ip: session.ip, createdAtMs: session.createdAt, lastUsedAtMs: session.lastUsedAt,
            expiresAtMs: session.expiresAt, current: session.id == current)
    }

    static func sent(_ ticket: CodeTicket) -> CodeSent {
        CodeSent(
            accountID: ticket.accountID, channel: ticket.channel.rawValue, destination: ticket.destination,
            expiresIn: ticket.expiresIn, resendAfter: ticket.resendAfter,
            message: "a code is on its way to \(ticket.destination)")
    }

    /// The answer to a code request for an address that may not exist (it does not say which).
    static let sentIfKnown = CodeSent(
        accountID: nil, channel: nil, destination: nil, expiresIn: nil, resendAfter: nil,
        message: "if an account has this address, a code is on its way")
}

/// The rate limits of the accounts API.
struct AccountLimits: Sendable {
    /// Per client IP: every request a stranger can make.
    let ip: KeyedRateLimiter
    /// Per tenant and address: sign-ins, codes sent, code checks.
    let address: KeyedRateLimiter
    /// Per account: password checks and token exchanges.
    let account: KeyedRateLimiter

    init(_ settings: AccountSettings) {
        ip = KeyedRateLimiter(
            KeyedRateLimiter.Rule(settings.ipLimit) ?? .init(30, per: .seconds(60)),
            what: "account requests from this IP")
        address = KeyedRateLimiter(
            KeyedRateLimiter.Rule(settings.addressLimit) ?? .init(10, per: .seconds(900)),
            what: "sign-ins and codes for this address")
        account = KeyedRateLimiter(
            KeyedRateLimiter.Rule(settings.accountLimit) ?? .init(60, per: .seconds(900)),
            what: "password checks and token requests for this account")
    }
}
