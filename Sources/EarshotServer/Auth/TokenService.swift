import EarshotAPI
import EarshotCore
import EarshotCrypto
import EarshotHTTP
import Foundation
import Synchronization

/// Issues and verifies access tokens: HS256 JWTs with a `kid` from the ``Keyring``.
///
/// A token is accepted only when its structure, algorithm (`HS256`), key id, signature (constant-time),
/// issuer, expiry and not-before (each with ``Configuration/leeway`` for clock skew) all check out and its
/// partner is still active and in the generation the token was issued in (disabling a partner revokes its tokens
/// for good). Every failure is 401 `UNAUTHORIZED`, with a message that says which check failed.
struct TokenService: Sendable {
    struct Configuration: Sendable {
        /// `iss` of every token, checked on verification.
        var issuer = "earshot"
        /// Lifetime of partner tokens.
        var partnerTokenTTL: Duration = .seconds(7200)
        /// Lifetime of user tokens when the request names none, and the cap when it does.
        var userTokenTTL: Duration = .seconds(86400)
        /// Clock skew tolerated on `exp` and `nbf`.
        var leeway: Duration = .seconds(30)
    }

    let keyring: Keyring
    let partners: PartnerDirectory
    let configuration: Configuration
    /// Long-lived keys accepted beside tokens (a bearer credential starting with `esk_`).
    var apiKeys: APIKeys?
    var now: @Sendable () -> Date = Date.init
    /// Headers and claims of tokens seen before, so a repeated token is not JSON-decoded again (its HMAC still is
    /// checked on every request).
    let decoded = DecodedTokens()

    /// A partner token for an authenticated partner.
    func partnerToken(for partner: Partner) async throws -> TokenResponse {
        let ttl = Int(configuration.partnerTokenTTL.components.seconds)
        let token = try await sign(
            subject: partner.id, partner: partner.id, kind: .partner, scopes: [.partner], ttlSeconds: ttl,
            generation: partner.generation)
        return TokenResponse(accessToken: token, expiresIn: ttl)
    }

    /// A user token for `userID` of the calling partner, living `ttlSeconds` capped at the configured maximum.
    func userToken(for caller: Principal, userID: String, ttlSeconds: Int?) async throws -> TokenResponse {
        guard Self.isValidUserID(userID) else {
            throw PlatformError.invalidArgument(
                "user_id must be 1-128 characters of letters, digits and . _ @ : - (got \(userID.count) characters)")
        }
        let cap = Int(configuration.userTokenTTL.components.seconds)
        if let ttlSeconds, ttlSeconds < 1 {
            throw PlatformError.invalidArgument("ttl_seconds must be positive (at most \(cap))")
        }
        let ttl = min(ttlSeconds ?? cap, cap)
        let token = try await sign(
            subject: userID, partner: caller.partnerID, kind: .user, scopes: Scope.user, ttlSeconds: ttl,
            generation: caller.generation)
        return TokenResponse(accessToken: token, expiresIn: ttl)
    }

    /// The caller of `request`, from its `Authorization: Bearer …` header: a token, or an API key (``APIKeys``).
    /// A client secret is refused (401): it opens only the live endpoint (``authenticateLive(_:)``).
    func authenticate(_ request: Request) async throws -> Principal {
        let credential = try Self.bearer(request)
        if let apiKeys, APIKeys.isKey(credential) { return try await apiKeys.verify(credential) }
        if credential.hasPrefix(Self.clientSecretPrefix) { throw Self.clientSecretElsewhere }
        return try await verify(credential)
    }

    /// The caller of the live endpoint: a token or API key as ``authenticate(_:)`` takes it, or a client secret
    /// (`ek_…`, ``clientSecret(for:session:ttlSeconds:)``), which also brings the session settings it was minted
    /// with. A client secret is checked like a token, but its expiry without leeway (it lives about a minute).
    func authenticateLive(_ credential: String) async throws -> (caller: Principal, session: String?) {
        guard credential.hasPrefix(Self.clientSecretPrefix) else {
            if let apiKeys, APIKeys.isKey(credential) { return (try await apiKeys.verify(credential), nil) }
            return (try await verify(credential), nil)
        }
        let (caller, claims) = try await verifyClaims(
            String(credential.dropFirst(Self.clientSecretPrefix.count)), clientSecret: true)
        guard claims.kind == .clientSecret else {
            throw PlatformError.unauthorized("invalid client secret: it is not a client secret")
        }
        return (caller, claims.session)
    }

    /// A client secret for `caller` (a partner or user token with `records:write`): `ek_` + a JWT of kind
    /// `client_secret` living `ttlSeconds`, acting for the caller's tenant and user, carrying `session` (the live
    /// session's settings, compact JSON). Returns it with its expiry (Unix seconds).
    func clientSecret(for caller: Principal, session: String?, ttlSeconds: Int) async throws -> (
        value: String, expiresAt: Int64
    ) {
        let (token, claims) = try await signed(
            subject: caller.userID ?? caller.partnerID, partner: caller.partnerID, kind: .clientSecret,
            scopes: [], ttlSeconds: ttlSeconds, generation: caller.generation
        ) { claims in
            claims.scope = Self.clientSecretScope
            claims.usr = caller.userID
            claims.session = session
        }
        return (Self.clientSecretPrefix + token, claims.exp)
    }

    /// What a client secret starts with (as OpenAI's ephemeral keys do).
    static let clientSecretPrefix = "ek_"
    /// The scope of a client secret: the live endpoint only.
    static let clientSecretScope = "realtime"
    static let clientSecretElsewhere = PlatformError.unauthorized(
        "a client secret (ek_…) only opens the live endpoint GET /v1/realtime; send a partner or user token here")

    /// ``authenticate(_:)`` without suspending, for inline attempts: the caller, or nil when deciding would mean
    /// waiting or explaining a refusal (an API key, a token not seen before, a key or partner not at hand) — then
    /// call ``authenticate(_:)``, which gives the same answer. A token seen before costs one HMAC, the claim checks
    /// and one indexed read of its partner.
    func authenticateImmediately(_ request: Request) throws -> Principal? {
        let credential = try Self.bearer(request)
        if apiKeys != nil, APIKeys.isKey(credential) { return nil }
        guard let dot = credential.utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let input = credential[..<dot]
        guard let entry = decoded.entry(for: input), let kid = entry.header.kid,
            let key = keyring.cachedKey(kid, purpose: .token),
            let signature = Base64URL.decode(credential[credential.utf8.index(after: dot)...]), signature.count == 32,
            Self.signature(of: input, key: key.signer).constantTimeEquals(Digest(bytes: signature))
        else { return nil }
        try check(entry.claims, scopes: entry.scopes)
        guard
            let partner = try partners.metadata.readImmediately({ db in
                try PartnerDirectory.standing(db, id: entry.claims.partner)
            })
        else { return nil }
        return try principal(entry.claims, scopes: entry.scopes, standing: partner)
    }

    /// HS256 of a token's `header.payload`, read in place (no copy into an array).
    private static func signature(of input: Substring, key: HMAC.PreparedKey) -> Digest {
        var input = input
        return input.withUTF8 { key.authenticationCode(UnsafeRawBufferPointer($0)) }
    }

    /// The credential of `Authorization: Bearer <credential>`, or 401 saying what is wrong with the header.
    static func bearer(_ request: Request) throws -> String {
        guard let header = request.headers["Authorization"] else {
            throw PlatformError.unauthorized("missing Authorization header; send 'Authorization: Bearer <token>'")
        }
        // On UTF-8 bytes: splitting the String into Characters cost 4 % of a task-status GET (decision 0008).
        let bytes = header.utf8
        let space = UInt8(ascii: " ")
        guard let schemeStart = bytes.firstIndex(where: { $0 != space }),
            let schemeEnd = bytes[schemeStart...].firstIndex(of: space),
            Self.isBearerScheme(bytes[schemeStart..<schemeEnd]),
            let credentialStart = bytes[schemeEnd...].firstIndex(where: { $0 != space })
        else {
            throw PlatformError.unauthorized("the Authorization header must be 'Bearer <token>'")
        }
        return header[credentialStart...].trimmingASCIISpaces()
    }

    /// `Bearer`, in any case (RFC 9110: the scheme is case-insensitive).
    private static func isBearerScheme(_ scheme: Substring.UTF8View) -> Bool {
        // `| 0x20` lowercases an ASCII letter; no other byte maps onto a lowercase letter.
        scheme.count == 6 && zip(scheme, "bearer".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// Verifies a token and returns its principal; throws 401 `UNAUTHORIZED` naming the failed check.
    func verify(_ token: String) async throws -> Principal {
        try await verifyClaims(token, clientSecret: false).caller
    }

    /// Verifies a token (a client secret only when `clientSecret`, without its prefix) and returns its principal and
    /// claims; throws 401 `UNAUTHORIZED` naming the failed check.
    private func verifyClaims(_ token: String, clientSecret: Bool) async throws -> (
        caller: Principal, claims: TokenClaims
    ) {
        let verified: (header: JWT.Header, payload: [UInt8])
        do {
            verified = try await JWT.verify(token) { header in
                guard let kid = header.kid else { return nil }
                return try await keyring.key(kid, purpose: .token)?.secret
            }
        } catch let failure as JWT.Failure {
            throw PlatformError.unauthorized("invalid token: \(failure)")
        }
        guard let claims = try? JSONDecoder().decode(TokenClaims.self, from: Data(verified.payload)) else {
            throw PlatformError.unauthorized("invalid token: the claims are malformed")
        }
        let scopes = Set(claims.scope.split(separator: " ").map(String.init))
        if let dot = token.utf8.lastIndex(of: UInt8(ascii: ".")) {
            decoded.remember(token[..<dot], .init(header: verified.header, claims: claims, scopes: scopes))
        }
        try check(claims, scopes: scopes, clientSecret: clientSecret)
        let standing = try await partners.metadata.read { db in
            try PartnerDirectory.standing(db, id: claims.partner)
        }
        return (try principal(claims, scopes: scopes, standing: standing), claims)
    }

    /// The checks of a verified token's claims that need no store: issuer, expiry, not-before, kind. A client
    /// secret passes only where `clientSecret` is allowed, and its expiry has no leeway.
    private func check(_ claims: TokenClaims, scopes: Set<String>, clientSecret: Bool = false) throws {
        guard claims.iss == configuration.issuer else {
            throw PlatformError.unauthorized("invalid token: issuer \"\(claims.iss)\" is not this server")
        }
        let nowSeconds = Int64(now().timeIntervalSince1970.rounded(.down))
        let leeway = configuration.leeway.components.seconds
        if claims.kind == .clientSecret {
            guard clientSecret else { throw Self.clientSecretElsewhere }
            guard nowSeconds < claims.exp else {
                throw PlatformError.unauthorized(
                    "client secret expired at \(Self.iso(claims.exp)); mint a new one right before connecting")
            }
        }
        guard nowSeconds < claims.exp + leeway else {
            throw PlatformError.unauthorized(
                "token expired at \(Self.iso(claims.exp)); request a new one")
        }
        guard claims.nbf <= nowSeconds + leeway, claims.iat <= nowSeconds + leeway else {
            throw PlatformError.unauthorized("token is not valid before \(Self.iso(claims.nbf)); check the clocks")
        }
        switch claims.kind {
        case .partner:
            guard claims.sub == claims.partner else {
                throw PlatformError.unauthorized("invalid token: partner token for another subject")
            }
        case .user:
            guard Self.isValidUserID(claims.sub), !scopes.contains(Scope.partner.rawValue) else {
                throw PlatformError.unauthorized("invalid token: malformed user token")
            }
        case .clientSecret:
            guard scopes == [Self.clientSecretScope], claims.sub == (claims.usr ?? claims.partner) else {
                throw PlatformError.unauthorized("invalid client secret: malformed claims")
            }
        }
    }

    /// The principal of checked `claims`, once their partner's `standing` (``PartnerDirectory/standing(_:id:)``)
    /// shows it active and in the token's generation.
    private func principal(
        _ claims: TokenClaims, scopes: Set<String>, standing: PartnerDirectory.Standing?
    ) throws -> Principal {
        guard let standing, standing.isActive else {
            throw PlatformError.unauthorized("the token's partner is disabled or no longer exists")
        }
        let generation = claims.gen ?? 1
        guard generation == standing.generation else {
            throw PlatformError.unauthorized(
                "the token was revoked: its partner was disabled after it was issued; request a new one")
        }
        let userID: String? =
            switch claims.kind {
            case .partner: nil
            case .user: claims.sub
            case .clientSecret: claims.usr
            }
        return Principal(
            partnerID: claims.partner, userID: userID, scopes: scopes, tokenID: claims.jti, generation: generation)
    }

    /// Signs a token with the current key.
    func sign(
        subject: String, partner: String, kind: TokenClaims.Kind, scopes: [Scope], ttlSeconds: Int, generation: Int
    ) async throws -> String {
        try await signed(
            subject: subject, partner: partner, kind: kind, scopes: scopes, ttlSeconds: ttlSeconds,
            generation: generation
        ).token
    }

    /// Signs a token with the current key, with `extra` claims; returns it with its claims.
    private func signed(
        subject: String, partner: String, kind: TokenClaims.Kind, scopes: [Scope], ttlSeconds: Int, generation: Int,
        extra: (inout TokenClaims) -> Void = { _ in }
    ) async throws -> (token: String, claims: TokenClaims) {
        let key = try await keyring.current(.token)
        let issued = Int64(now().timeIntervalSince1970.rounded(.down))
        var claims = TokenClaims(
            iss: configuration.issuer, sub: subject, partner: partner, kind: kind,
            scope: scopes.map(\.rawValue).joined(separator: " "), iat: issued, nbf: issued,
            exp: issued + Int64(ttlSeconds), jti: Identifier.make(prefix: "tok"), gen: generation)
        extra(&claims)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let payload = Array(try encoder.encode(claims))
        let token = JWT.sign(
            header: .init(alg: JWT.algorithm, typ: "JWT", kid: key.kid), payload: payload, key: key.secret)
        return (token, claims)
    }

    /// The `user_id` query filter of a listing, or 400 naming the rule when it is not a user id (rather than a
    /// filter that silently matches nothing).
    static func userFilter(_ query: QueryParameters) throws -> String? {
        guard let userID = query["user_id"] else { return nil }
        guard isValidUserID(userID) else {
            throw PlatformError.invalidArgument(
                "user_id must be 1-128 characters of letters, digits and . _ @ : - (got \(userID.count) characters)")
        }
        return userID
    }

    static func isValidUserID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        return (1...128).contains(bytes.count)
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "@"), UInt8(ascii: ":"), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }

    private static func iso(_ seconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}

/// The headers and claims of tokens already decoded, by signing input (`header.payload`): a repeated token is
/// not decoded again. Its signature is still verified on every use, against the key its header names. Bounded;
/// when full it starts over.
final class DecodedTokens: Sendable {
    struct Entry: Sendable {
        let header: JWT.Header
        let claims: TokenClaims
        let scopes: Set<String>
    }

    static let capacity = 4096
    private let entries = Mutex<[Substring: Entry]>([:])

    func entry(for input: Substring) -> Entry? {
        entries.withLock { $0[input] }
    }

    func remember(_ input: Substring, _ entry: Entry) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[Substring(String(input))] = entry
        }
    }
}
