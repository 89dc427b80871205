import EarshotAPI
import EarshotCore
import EarshotCrypto
import EarshotStore
import Foundation

/// Long-lived API keys for scripts and integrations, beside the short-lived tokens: `esk_` + 43 characters
/// (256 random bits), created by a partner (API or `earshot keys create`), scoped, optionally bound to one user and
/// given an expiry, revocable at once.
///
/// Only a SHA-256 of each key is stored; the key is looked up by that hash (a key carries 256 bits of entropy, so an
/// unsalted fast hash is enough and keeps per-request checks cheap). ``TokenService/authenticate(_:)`` hands a
/// bearer credential starting with `esk_` here, so every route that takes a token takes a key with the same scopes.
struct APIKeys: Sendable {
    let metadata: any MetadataStore
    let partners: PartnerDirectory
    var now: @Sendable () -> Date = Date.init

    /// The prefix every key starts with.
    static let prefix = "esk_"

    /// Whether `credential` is shaped like an API key (rather than a JWT).
    static func isKey(_ credential: String) -> Bool { credential.hasPrefix(prefix) }

    /// Scopes a key may carry: `partner` (everything) or the user scopes.
    static let grantable = Set([Scope.partner.rawValue] + Scope.user.map(\.rawValue))

    /// Creates a key for `caller`'s tenant; returns it with the key text (shown this once).
    func create(partnerID: String, _ request: APIKeyRequest) async throws -> CreatedAPIKey {
        let name = request.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(name.count) else {
            throw PlatformError.invalidArgument("name must be 1-100 characters (what the key is for)")
        }
        let scopes = Array(Set(request.scopes)).sorted()
        guard !scopes.isEmpty else {
            throw PlatformError.invalidArgument(
                "scopes is empty: give at least one of " + Self.grantable.sorted().joined(separator: ", "))
        }
        if let unknown = scopes.first(where: { !Self.grantable.contains($0) }) {
            throw PlatformError.invalidArgument(
                "scope \"\(unknown.prefix(32))\" is unknown; use " + Self.grantable.sorted().joined(separator: ", "))
        }
        if let userID = request.userID {
            guard TokenService.isValidUserID(userID) else {
                throw PlatformError.invalidArgument("user_id must be 1-128 characters of letters, digits and . _ @ : -")
            }
            guard !scopes.contains(Scope.partner.rawValue) else {
                throw PlatformError.invalidArgument("a key of a user cannot carry the partner scope")
            }
        }
        if let days = request.expiresInDays, !(1...3650).contains(days) {
            throw PlatformError.invalidArgument("expires_in_days must be 1-3650 (or absent: until revoked)")
        }
        let secret = Self.prefix + Base64URL.encode(try SecureRandom.bytes(32))
        let created = Int64(now().timeIntervalSince1970 * 1000)
        let key = APIKey(
            keyID: Identifier.make(prefix: "key"), name: name, scopes: scopes, userID: request.userID,
            prefix: String(secret.prefix(8)), createdAtMs: created,
            expiresAtMs: request.expiresInDays.map { created + Int64($0) * 86_400_000 }, lastUsedAtMs: nil,
            revokedAtMs: nil)
        try await metadata.write { db in
            try db.execute(
                "INSERT INTO api_keys (id, partner_id, user_id, name, scopes, key_hash, prefix, created_at, "
                    + "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                key.keyID, partnerID, key.userID, key.name, scopes.joined(separator: " "), Self.hash(secret),
                key.prefix, key.createdAtMs, key.expiresAtMs)
        }
        return CreatedAPIKey(apiKey: secret, key: key)
    }

    /// The tenant's keys, newest first (revoked ones included, marked).
    func list(partnerID: String) async throws -> [APIKey] {
        try await metadata.read { db in
            try db.query(
                "SELECT \(Self.columns) FROM api_keys WHERE partner_id = ? ORDER BY created_at DESC, id DESC",
                [.text(partnerID)]
            ).map(Self.key)
        }
    }

    /// Revokes key `id` of the tenant; it is refused from the next request on. 404 when there is no such key.
    func revoke(partnerID: String, keyID: String) async throws -> APIKey {
        let at = Int64(now().timeIntervalSince1970 * 1000)
        let key = try await metadata.write { db -> APIKey? in
            try db.execute(
                "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND partner_id = ?", at, keyID,
                partnerID)
            return try db.queryFirst(
                "SELECT \(Self.columns) FROM api_keys WHERE id = ? AND partner_id = ?", keyID, partnerID
            ).map(Self.key)
        }
        guard let key else { throw PlatformError.notFound("no API key \(keyID.prefix(40))") }
        return key
    }

    /// The caller a key stands for; 401 `UNAUTHORIZED` naming why it is refused.
    func verify(_ credential: String) async throws -> Principal {
        let hash = Self.hash(credential)
        let found = try await metadata.read { db in
            try db.queryFirst("SELECT partner_id, \(Self.columns) FROM api_keys WHERE key_hash = ?", hash)
                .map { (try $0.decode("partner_id", as: String.self), try Self.key($0)) }
        }
        guard let (partnerID, key) = found else { throw PlatformError.unauthorized("invalid API key") }
        let at = Int64(now().timeIntervalSince1970 * 1000)
        if key.revokedAtMs != nil {
            throw PlatformError.unauthorized("API key \(key.keyID) was revoked; create a new one")
        }
        if let expires = key.expiresAtMs, expires <= at {
            throw PlatformError.unauthorized("API key \(key.keyID) expired; create a new one")
        }
        guard let partner = try await partners.partner(partnerID), partner.isActive else {
            throw PlatformError.unauthorized("the key's partner is disabled or no longer exists")
        }
        if (key.lastUsedAtMs ?? 0) < at - 60_000 {
            try await metadata.write { db in
                try db.execute("UPDATE api_keys SET last_used_at = ? WHERE id = ?", at, key.keyID)
            }
        }
        return Principal(partnerID: partnerID, userID: key.userID, scopes: Set(key.scopes), tokenID: key.keyID)
    }

    static func hash(_ key: String) -> String { DigestAlgorithm.sha256.hash(Array(key.utf8)).hex }

    static let columns =
        "id, user_id, name, scopes, prefix, created_at, expires_at, last_used_at, revoked_at"

    static func key(_ row: SQLRow) throws -> APIKey {
        APIKey(
            keyID: try row.decode("id"), name: try row.decode("name"),
            scopes: try row.decode("scopes", as: String.self).split(separator: " ").map(String.init),
            userID: try row.decode("user_id", as: String?.self), prefix: try row.decode("prefix"),
            createdAtMs: try row.decode("created_at"), expiresAtMs: try row.decode("expires_at", as: Int64?.self),
            lastUsedAtMs: try row.decode("last_used_at", as: Int64?.self),
            revokedAtMs: try row.decode("revoked_at", as: Int64?.self))
    }
}
