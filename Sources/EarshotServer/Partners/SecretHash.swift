import Dispatch
import EarshotCrypto

/// A client secret kept only as a salted hash, in one of two schemes (the scheme is stored with each hash, so both
/// verify side by side):
///
/// - `sha256$<salt>$<hash>`: SHA-256(salt ‖ secret), for the secrets Earshot generates (256 random bits: a
///   slow KDF adds nothing against brute force of a leaked hash, and costs a CPU-bound attacker's target ~50 ms
///   per guess). New and rotated secrets use it; checking one takes about a microsecond.
/// - `pbkdf2-sha256$<iterations>$<salt>$<hash>`: PBKDF2-HMAC-SHA-256, as secrets made before it were stored.
///   Still verified (on a dispatch thread: tens of milliseconds of CPU); `earshot partners rotate-secret` replaces
///   one with a `sha256` hash.
///
/// docs/decisions/0007-credential-checks.md has the measurements.
struct SecretHash: Sendable, Equatable {
    enum Scheme: Sendable, Equatable {
        case sha256
        case pbkdf2(iterations: Int)
    }

    static let defaultIterations = 100_000

    let scheme: Scheme
    let salt: [UInt8]
    let hash: [UInt8]

    /// Hashes a generated (high-entropy) `secret` with a fresh 16-byte salt, in the `sha256` scheme.
    static func make(_ secret: String) throws -> SecretHash {
        let salt = try SecureRandom.bytes(16)
        return SecretHash(scheme: .sha256, salt: salt, hash: sha256(secret, salt: salt))
    }

    /// Hashes `secret` in the `pbkdf2-sha256` scheme (for tests of secrets stored before the `sha256` scheme).
    static func makePBKDF2(_ secret: String, iterations: Int = defaultIterations) async throws -> SecretHash {
        let salt = try SecureRandom.bytes(16)
        let hash = try await derive(secret, salt: salt, iterations: iterations)
        return SecretHash(scheme: .pbkdf2(iterations: iterations), salt: salt, hash: hash)
    }

    /// Parses the stored form; nil when it is not one.
    init?(encoded: String) {
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        switch (fields.first, fields.count) {
        case ("sha256", 3):
            guard let salt = Base64URL.decode(fields[1]), let hash = Base64URL.decode(fields[2]), hash.count == 32
            else { return nil }
            self.init(scheme: .sha256, salt: salt, hash: hash)
        case ("pbkdf2-sha256", 4):
            guard let iterations = Int(fields[1]), iterations > 0, let salt = Base64URL.decode(fields[2]),
                let hash = Base64URL.decode(fields[3]), !hash.isEmpty
            else { return nil }
            self.init(scheme: .pbkdf2(iterations: iterations), salt: salt, hash: hash)
        default:
            return nil
        }
    }

    init(scheme: Scheme, salt: [UInt8], hash: [UInt8]) {
        self.scheme = scheme
        self.salt = salt
        self.hash = hash
    }

    var encoded: String {
        switch scheme {
        case .sha256: "sha256$\(Base64URL.encode(salt))$\(Base64URL.encode(hash))"
        case .pbkdf2(let iterations):
            "pbkdf2-sha256$\(iterations)$\(Base64URL.encode(salt))$\(Base64URL.encode(hash))"
        }
    }

    /// Whether checking a secret against this hash is expensive (a KDF), so worth rate-limiting before.
    var isSlow: Bool { scheme != .sha256 }

    /// True when `secret` hashes to this value (compared in constant time).
    func matches(_ secret: String) async throws -> Bool {
        let candidate: [UInt8]
        switch scheme {
        case .sha256: candidate = Self.sha256(secret, salt: salt)
        case .pbkdf2(let iterations): candidate = try await Self.derive(secret, salt: salt, iterations: iterations)
        }
        return ConstantTime.equals(candidate, hash)
    }

    private static func sha256(_ secret: String, salt: [UInt8]) -> [UInt8] {
        DigestAlgorithm.sha256.hash(salt + Array(secret.utf8)).bytes
    }

    /// PBKDF2 on a dispatch thread: tens of milliseconds of CPU should not hold a cooperative-pool thread.
    private static func derive(_ secret: String, salt: [UInt8], iterations: Int) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result { try PBKDF2.sha256(password: Array(secret.utf8), salt: salt, iterations: iterations) }
                )
            }
        }
    }
}
