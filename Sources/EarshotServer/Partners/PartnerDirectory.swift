import EarshotCore
import EarshotCrypto
import EarshotStore
import Foundation

/// The partners (tenants) in the metadata store: creation, credentials, status and generation, look-ups.
struct PartnerDirectory: Sendable {
    let metadata: any MetadataStore
    var now: @Sendable () -> Date = Date.init

    /// What the credential check needs of a partner: the partner, its secret's hash and, during a rotation's
    /// overlap, the previous one.
    struct StoredCredentials: Sendable {
        let partner: Partner
        let secretHash: String
        let previousSecretHash: String?
        let previousSecretExpiresAt: Int64?
    }

    /// Creates a partner with a fresh client secret (returned once; only its hash is stored).
    func create(name: String) async throws -> PartnerCredentials {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 200 else {
            throw PlatformError.invalidArgument("a partner name must be 1-200 characters")
        }
        let secret = try Self.newSecret()
        let hash = try SecretHash.make(secret)
        let partner = Partner(
            id: Identifier.make(prefix: "ptn"), name: trimmed, status: "active", createdAt: milliseconds(now()),
            generation: 1)
        try await metadata.write { db in
            try db.execute(
                "INSERT INTO partners (id, name, secret_hash, status, created_at) VALUES (?, ?, ?, ?, ?)", partner.id,
                partner.name, hash.encoded, partner.status, partner.createdAt)
        }
        return PartnerCredentials(partner: partner, clientSecret: secret)
    }

    /// `sk_` + 256 random bits, base64url.
    static func newSecret() throws -> String {
        "sk_" + Base64URL.encode(try SecureRandom.bytes(32))
    }

    /// The stored credentials of `clientID`, or nil (also for a malformed id).
    func credentials(_ clientID: String) async throws -> StoredCredentials? {
        guard Identifier.isValid(clientID, prefix: "ptn") else { return nil }
        return try await metadata.read { db in
            try db.queryFirst(
                "SELECT \(Partner.columns), secret_hash, previous_secret_hash, previous_secret_expires_at "
                    + "FROM partners WHERE id = ?", clientID
            ).map {
                StoredCredentials(
                    partner: try $0.decode(Partner.self), secretHash: try $0.decode("secret_hash"),
                    previousSecretHash: try $0.decode("previous_secret_hash"),
                    previousSecretExpiresAt: try $0.decode("previous_secret_expires_at"))
            }
        }
    }

    /// The partner `id`, or nil.
    func partner(_ id: String) async throws -> Partner? {
        try await metadata.read { db in
            try db.queryFirst("SELECT \(Partner.columns) FROM partners WHERE id = ?", id)
                .map { try $0.decode(Partner.self) }
        }
    }

    /// What token checks need of a partner: active or not, and its generation.
    struct Standing: Sendable, Equatable {
        let isActive: Bool
        let generation: Int
    }

    /// The standing of partner `id`, or nil when there is none (read column by column: a hot path).
    static func standing(_ db: any SQLDatabase, id: String) throws -> Standing? {
        try db.queryFirst("SELECT status, generation FROM partners WHERE id = ?", id).map { row in
            Standing(
                isActive: try row.decode("status", as: String.self) == "active",
                generation: try row.decode("generation", as: Int.self))
        }
    }

    /// Every partner, oldest first.
    func list() async throws -> [Partner] {
        try await metadata.read { db in
            try db.query("SELECT \(Partner.columns) FROM partners ORDER BY created_at, id")
                .map { try $0.decode(Partner.self) }
        }
    }

    /// Sets a partner's status; false when there is no such partner. Disabling bumps the generation, which
    /// revokes every token and signed URL issued so far (they stay revoked if the partner is enabled again).
    func setStatus(_ id: String, active: Bool) async throws -> Bool {
        try await metadata.write { db in
            try db.execute(
                active
                    ? "UPDATE partners SET status = 'active' WHERE id = ?"
                    : "UPDATE partners SET status = 'disabled', generation = generation + 1 WHERE id = ?", id) == 1
        }
    }

    /// Gives the partner a new client secret (returned once) and keeps the current one working for `overlap`, so
    /// its backend can switch without downtime; a second rotation ends the first one's overlap.
    func rotateSecret(_ id: String, overlap: Duration) async throws -> String? {
        let secret = try Self.newSecret()
        let hash = try SecretHash.make(secret)
        let until = milliseconds(now()) + Int64(overlap.components.seconds) * 1000
        let changed = try await metadata.write { db in
            try db.execute(
                "UPDATE partners SET previous_secret_hash = secret_hash, previous_secret_expires_at = ?, "
                    + "secret_hash = ? WHERE id = ?", until, hash.encoded, id) == 1
        }
        return changed ? secret : nil
    }
}
