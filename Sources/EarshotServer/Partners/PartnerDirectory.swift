import EarshotCore
import EarshotCrypto
import EarshotStore
import Foundation

/// The partners (tenants) in the metadata store: creation, credential checks, look-ups.
struct PartnerDirectory: Sendable {
    let metadata: any MetadataStore
    var now: @Sendable () -> Date = Date.init

    /// Creates a partner with a fresh client secret (returned once; only its hash is stored).
    func create(name: String) async throws -> PartnerCredentials {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 200 else {
            throw PlatformError.invalidArgument("a partner name must be 1-200 characters")
        }
        let secret = "sk_" + Base64URL.encode(try SecureRandom.bytes(32))
        let hash = try await SecretHash.make(secret)
        let partner = Partner(
            id: Identifier.make(prefix: "ptn"), name: trimmed, status: "active", createdAt: milliseconds(now()))
        try await metadata.write { db in
            try db.execute(
                "INSERT INTO partners (id, name, secret_hash, status, created_at) VALUES (?, ?, ?, ?, ?)", partner.id,
                partner.name, hash.encoded, partner.status, partner.createdAt)
        }
        return PartnerCredentials(partner: partner, clientSecret: secret)
    }

    /// The partner whose credentials these are, or 401 `UNAUTHORIZED` (the same answer for an unknown client id,
    /// a wrong secret and a disabled partner, and in about the same time).
    func authenticate(clientID: String, clientSecret: String) async throws -> Partner {
        let row: (Partner, String)? =
            Identifier.isValid(clientID, prefix: "ptn")
            ? try await metadata.read { db in
                try db.queryFirst(
                    "SELECT id, name, status, created_at, secret_hash FROM partners WHERE id = ?", clientID
                ).map { (try $0.decode(Partner.self), try $0.decode("secret_hash", as: String.self)) }
            } : nil
        // Hash even when the client is unknown, so timing does not reveal which client ids exist.
        let stored = row.flatMap { SecretHash(encoded: $0.1) } ?? Self.decoy
        let matches = try await stored.matches(clientSecret)
        guard matches, let partner = row?.0, partner.isActive else {
            throw PlatformError.unauthorized("invalid client credentials")
        }
        return partner
    }

    /// The partner `id`, or nil.
    func partner(_ id: String) async throws -> Partner? {
        try await metadata.read { db in
            try db.queryFirst("SELECT id, name, status, created_at FROM partners WHERE id = ?", id)
                .map { try $0.decode(Partner.self) }
        }
    }

    /// Every partner, oldest first.
    func list() async throws -> [Partner] {
        try await metadata.read { db in
            try db.query("SELECT id, name, status, created_at FROM partners ORDER BY created_at, id")
                .map { try $0.decode(Partner.self) }
        }
    }

    /// Sets a partner's status; false when there is no such partner.
    func setStatus(_ id: String, active: Bool) async throws -> Bool {
        try await metadata.write { db in
            try db.execute("UPDATE partners SET status = ? WHERE id = ?", active ? "active" : "disabled", id) == 1
        }
    }

    /// A hash no secret matches, checked for unknown client ids.
    private static let decoy = SecretHash(
        iterations: SecretHash.defaultIterations, salt: Array(repeating: 0, count: 16),
        hash: Array(repeating: 0, count: 32))
}
