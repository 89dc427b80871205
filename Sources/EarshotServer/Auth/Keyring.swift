import EarshotCore
import EarshotCrypto
import EarshotStore
import Foundation
import Synchronization

/// The HMAC keys that sign access tokens and URLs, kept in the metadata store (`signing_keys`) so they survive
/// restarts and are shared by every server process on the same database.
///
/// For each ``Purpose`` the newest unretired key signs. ``rotate(_:)`` makes a new key current and retires the
/// old ones, which keep verifying until ``Configuration/retention`` after their retirement — longer than anything
/// they signed can live — and are then deleted by ``maintain()``. Keys are 256 random bits from
/// ``SecureRandom``. A key id the cache does not know is looked up in the store once (another process may
/// have rotated).
final class Keyring: Sendable {
    /// What a key signs.
    enum Purpose: String, Sendable, CaseIterable {
        /// Access tokens (JWT `kid`).
        case token
        /// Presigned part URLs and download URLs.
        case url
    }

    /// One key.
    struct Key: Sendable, Equatable {
        let kid: String
        let purpose: Purpose
        let secret: [UInt8]
        /// Unix milliseconds.
        let createdAt: Int64
        let retiredAt: Int64?
        /// HMAC-SHA256 with `secret`, prepared once (the task-status read path verifies a token per request).
        let signer: HMAC.PreparedKey

        init(kid: String, purpose: Purpose, secret: [UInt8], createdAt: Int64, retiredAt: Int64?) {
            self.kid = kid
            self.purpose = purpose
            self.secret = secret
            self.createdAt = createdAt
            self.retiredAt = retiredAt
            signer = HMAC.PreparedKey(.sha256, secret: secret)
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            (lhs.kid, lhs.purpose, lhs.secret, lhs.createdAt, lhs.retiredAt)
                == (rhs.kid, rhs.purpose, rhs.secret, rhs.createdAt, rhs.retiredAt)
        }
    }

    struct Configuration: Sendable {
        /// A current key older than this is replaced by ``maintain()``.
        var rotationInterval: Duration = .seconds(30 * 86400)
        /// A retired key still verifies for this long (at least the longest token or URL lifetime).
        var retention: Duration = .seconds(86400)
    }

    let metadata: any MetadataStore
    let configuration: Configuration
    let now: @Sendable () -> Date
    private let logger = Logger(label: "keys")
    private let cache = Mutex<[String: Key]>([:])

    init(metadata: any MetadataStore, configuration: Configuration, now: @escaping @Sendable () -> Date = Date.init) {
        self.metadata = metadata
        self.configuration = configuration
        self.now = now
    }

    /// The key that signs for `purpose` now; creates the first one when there is none.
    func current(_ purpose: Purpose) async throws -> Key {
        if let key = newest(purpose, in: cache.withLock { $0 }) { return key }
        try await reload()
        if let key = newest(purpose, in: cache.withLock { $0 }) { return key }
        return try await insertKey(purpose, retiringOthers: false)
    }

    /// The key `kid` of `purpose`, or nil when no such key exists (or it has been deleted).
    func key(_ kid: String, purpose: Purpose) async throws -> Key? {
        if let key = cache.withLock({ $0[kid] }) { return key.purpose == purpose ? key : nil }
        guard Identifier.isValid(kid, prefix: "key") else { return nil }  // don't query for garbage
        try await reload()
        return cache.withLock { $0[kid] }.flatMap { $0.purpose == purpose ? $0 : nil }
    }

    /// The key `kid` of `purpose` when the cache holds it (no store access; nil may mean "not loaded yet").
    func cachedKey(_ kid: String, purpose: Purpose) -> Key? {
        cache.withLock { $0[kid] }.flatMap { $0.purpose == purpose ? $0 : nil }
    }

    /// Makes a new key current for `purpose`; the previous ones are retired and keep verifying until
    /// ``Configuration/retention`` has passed.
    @discardableResult
    func rotate(_ purpose: Purpose) async throws -> Key {
        let key = try await insertKey(purpose, retiringOthers: true)
        logger.notice("signing key rotated", metadata: ["purpose": purpose.rawValue, "kid": key.kid])
        return key
    }

    /// Rotates current keys older than ``Configuration/rotationInterval`` and deletes retired keys past
    /// ``Configuration/retention``; reloads the cache (picking up rotations by other processes).
    func maintain() async throws {
        try await reload()
        let nowMs = milliseconds(now())
        for purpose in Purpose.allCases {
            if let key = newest(purpose, in: cache.withLock { $0 }),
                nowMs - key.createdAt >= configuration.rotationInterval.milliseconds
            {
                try await rotate(purpose)
            }
        }
        let cutoff = nowMs - configuration.retention.milliseconds
        let deleted = try await metadata.write { db in
            try db.execute("DELETE FROM signing_keys WHERE retired_at IS NOT NULL AND retired_at < ?", cutoff)
        }
        if deleted > 0 {
            logger.info("expired signing keys deleted", metadata: ["count": "\(deleted)"])
            try await reload()
        }
    }

    /// Replaces the cache with the store's keys.
    func reload() async throws {
        let keys = try await metadata.read { db in
            try db.query("SELECT kid, purpose, secret, created_at, retired_at FROM signing_keys").map { row in
                Key(
                    kid: try row.decode("kid"), purpose: Purpose(rawValue: try row.decode("purpose")) ?? .token,
                    secret: try row.decode("secret"), createdAt: try row.decode("created_at"),
                    retiredAt: try row.decode("retired_at"))
            }
        }
        cache.withLock { $0 = Dictionary(uniqueKeysWithValues: keys.map { ($0.kid, $0) }) }
    }

    private func insertKey(_ purpose: Purpose, retiringOthers: Bool) async throws -> Key {
        let key = Key(
            kid: Identifier.make(prefix: "key"), purpose: purpose, secret: try SecureRandom.bytes(32),
            createdAt: milliseconds(now()), retiredAt: nil)
        try await metadata.write { db in
            if retiringOthers {
                try db.execute(
                    "UPDATE signing_keys SET retired_at = ? WHERE purpose = ? AND retired_at IS NULL",
                    key.createdAt, purpose.rawValue)
            }
            try db.execute(
                "INSERT INTO signing_keys (kid, purpose, secret, created_at) VALUES (?, ?, ?, ?)", key.kid,
                purpose.rawValue, key.secret, key.createdAt)
        }
        try await reload()
        return key
    }

    private func newest(_ purpose: Purpose, in keys: [String: Key]) -> Key? {
        keys.values.filter { $0.purpose == purpose && $0.retiredAt == nil }
            .max { ($0.createdAt, $0.kid) < ($1.createdAt, $1.kid) }
    }
}

/// Unix milliseconds of `date`.
func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
