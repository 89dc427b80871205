import Dispatch
import EarshotCrypto
import Foundation

/// Hashes and verifies passwords with Argon2id (libargon2) in PHC format, on its own threads.
///
/// A hash takes tens to hundreds of milliseconds of CPU and ``Argon2Parameters/memoryKiB`` of memory, so at most
/// ``Configuration/concurrency`` run at once (further callers wait their turn, cancellably) and they run on a
/// dispatch queue, never on the cooperative pool. Passwords are Unicode-normalised (NFC) before hashing, so the
/// same visible password typed on two keyboards verifies. Thread-safe.
public struct PasswordHasher: Sendable {
    /// How passwords are hashed.
    public struct Configuration: Sendable, Hashable {
        /// Cost of new hashes (and the bar below which a stored hash is upgraded at sign-in).
        public var parameters = Argon2Parameters.owaspMinimum
        /// Hashes computed at once (default: the number of CPUs).
        public var concurrency = ProcessInfo.processInfo.activeProcessorCount

        /// `concurrency` nil means one hash per CPU.
        public init(parameters: Argon2Parameters = .owaspMinimum, concurrency: Int? = nil) {
            self.parameters = parameters
            self.concurrency = max(1, concurrency ?? ProcessInfo.processInfo.activeProcessorCount)
        }
    }

    /// How passwords are hashed.
    public let configuration: Configuration
    private let gate: PermitGate
    private static let queue = DispatchQueue(label: "earshot.argon2", attributes: .concurrent)

    /// A hasher with its own bound on concurrent hashes.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.gate = PermitGate(permits: configuration.concurrency)
    }

    /// A new PHC-format Argon2id hash of `password` with a fresh 16-byte salt.
    public func hash(_ password: String) async throws -> String {
        let salt = try SecureRandom.bytes(16)
        let bytes = Self.normalized(password)
        let parameters = configuration.parameters
        return try await run { try Argon2.encoded(password: bytes, salt: salt, parameters: parameters) }
    }

    /// True when `password` matches `encoded` (constant-time comparison inside libargon2). A stored value that is
    /// not an Argon2id hash never matches.
    public func verify(_ password: String, against encoded: String) async throws -> Bool {
        let bytes = Self.normalized(password)
        return try await run { Argon2.verify(password: bytes, encoded: encoded) }
    }

    /// True when `encoded` was made with weaker parameters than the configured ones (re-hash it at sign-in).
    public func needsRehash(_ encoded: String) -> Bool {
        guard let stored = Argon2Parameters(phc: encoded) else { return true }
        return stored.isWeaker(than: configuration.parameters)
    }

    /// A hash no password matches, verified for unknown accounts so the answer takes as long as for known ones.
    public func decoy() -> String {
        let p = configuration.parameters
        return "$argon2id$v=19$\(p)$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    }

    /// The UTF-8 bytes of the NFC form of `password`.
    static func normalized(_ password: String) -> [UInt8] {
        Array(password.precomposedStringWithCanonicalMapping.utf8)
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await gate.acquire()
        defer { gate.release() }
        return try await withCheckedThrowingContinuation { continuation in
            Self.queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
