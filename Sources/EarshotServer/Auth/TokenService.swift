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
    func authenticate(_ request: Request) async throws -> Principal {
        let credential = try Self.bearer(request)
        if let apiKeys, APIKeys.isKey(credential) { return try await apiKeys.verify(credential) }
        return try await verify(credential)
    }

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
            HMAC.authenticationCode(.sha256, key: key.secret, message: Array(input.utf8))
                .constantTimeEquals(Digest(bytes: signature))
        else { return nil }
        try check(entry.claims, scopes: entry.scopes)
        guard
            let partner = try partners.metadata.readImmediately({ db in
                try PartnerDirectory.standing(db, id: entry.claims.partner)
            })
        else { return nil }
        return try principal(entry.claims, scopes: entry.scopes, standing: partner)
    }

    /// The credential of `Authorization: Bearer <credential>`, or 401 saying what is wrong with the header.
    private static func bearer(_ request: Request) throws -> String {
        guard let header = request.headers["Authorization"] else {
            throw PlatformError.unauthorized("missing Authorization header; send 'Authorization: Bearer <token>'")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw PlatformError.unauthorized("the Authorization header must be 'Bearer <token>'")
        }
        return String(parts[1]).trimmingCharacters(in: .whitespaces)
    }

    /// Verifies a token and returns its principal; throws 401 `UNAUTHORIZED` naming the failed check.
    func verify(_ token: String) async throws -> Principal {
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
        try check(claims, scopes: scopes)
        let standing = try await partners.metadata.read { db in
            try PartnerDirectory.standing(db, id: claims.partner)
        }
        return try principal(claims, scopes: scopes, standing: standing)
    }

    /// The checks of a verified token's claims that need no store: issuer, expiry, not-before, kind.
    private func check(_ claims: TokenClaims, scopes: Set<String>) throws {
        guard claims.iss == configuration.issuer else {
            throw PlatformError.unauthorized("invalid token: issuer \"\(claims.iss)\" is not this server")
        }
        let nowSeconds = Int64(now().timeIntervalSince1970.rounded(.down))
        let leeway = configuration.leeway.components.seconds
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
        return Principal(
            partnerID: claims.partner, userID: claims.kind == .user ? claims.sub : nil, scopes: scopes,
            tokenID: claims.jti, generation: generation)
    }

    /// Signs a token with the current key.
    func sign(
        subject: String, partner: String, kind: TokenClaims.Kind, scopes: [Scope], ttlSeconds: Int, generation: Int
    ) async throws -> String {
        let key = try await keyring.current(.token)
        let issued = Int64(now().timeIntervalSince1970.rounded(.down))
        let claims = TokenClaims(
            iss: configuration.issuer, sub: subject, partner: partner, kind: kind,
            scope: scopes.map(\.rawValue).joined(separator: " "), iat: issued, nbf: issued,
            exp: issued + Int64(ttlSeconds), jti: Identifier.make(prefix: "tok"), gen: generation)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let payload = Array(try encoder.encode(claims))
        return JWT.sign(header: .init(alg: JWT.algorithm, typ: "JWT", kid: key.kid), payload: payload, key: key.secret)
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
