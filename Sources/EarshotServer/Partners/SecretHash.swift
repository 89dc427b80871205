import Dispatch
import EarshotCrypto

/// A client secret kept only as a salted PBKDF2-HMAC-SHA-256 hash:
/// `pbkdf2-sha256$<iterations>$<salt, base64url>$<hash, base64url>`.
///
/// Secrets are 256 random bits, so stretching is defence in depth rather than the main protection; the
/// iteration count is stored with each hash so it can be raised without invalidating existing secrets.
struct SecretHash: Sendable, Equatable {
    static let scheme = "pbkdf2-sha256"
    static let defaultIterations = 100_000

    let iterations: Int
    let salt: [UInt8]
    let hash: [UInt8]

    /// Hashes `secret` with a fresh 16-byte salt.
    static func make(_ secret: String, iterations: Int = defaultIterations) async throws -> SecretHash {
        let salt = try SecureRandom.bytes(16)
        let hash = try await derive(secret, salt: salt, iterations: iterations)
        return SecretHash(iterations: iterations, salt: salt, hash: hash)
    }

    /// Parses the stored form; nil when it is not one.
    init?(encoded: String) {
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == Self.scheme, let iterations = Int(fields[1]), iterations > 0,
            let salt = Base64URL.decode(fields[2]), let hash = Base64URL.decode(fields[3]), !hash.isEmpty
        else { return nil }
        self.init(iterations: iterations, salt: salt, hash: hash)
    }

    init(iterations: Int, salt: [UInt8], hash: [UInt8]) {
        self.iterations = iterations
        self.salt = salt
        self.hash = hash
    }

    var encoded: String {
        "\(Self.scheme)$\(iterations)$\(Base64URL.encode(salt))$\(Base64URL.encode(hash))"
    }

    /// True when `secret` hashes to this value (compared in constant time).
    func matches(_ secret: String) async throws -> Bool {
        let candidate = try await Self.derive(secret, salt: salt, iterations: iterations)
        return ConstantTime.equals(candidate, hash)
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
