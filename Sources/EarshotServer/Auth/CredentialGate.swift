import EarshotCrypto
import Foundation
import Synchronization

/// The client-credentials check of `POST /open/partner/token`, guarded so that it cannot be used to burn the
/// server's CPU: without credentials, every request used to cost a 100,000-round PBKDF2.
///
/// In order:
/// 1. A credential verified in the last ``Configuration/cacheLifetime`` is recognised by its SHA-256 (the
///    partner row is still read, so a disabled partner or a rotated secret takes effect at once).
/// 2. Otherwise the request takes a token from two ``RateLimiter``s, per source address and per client id, before
///    anything is hashed: over budget is 429 `RATE_LIMITED` with `Retry-After`. A success gives them back, so
///    only failed attempts use the budget.
/// 3. A slow (PBKDF2) hash is checked only when one of ``Configuration/slowChecks`` slots is free, else 429: at
///    most that many cores hash at once, however many addresses an attacker has.
/// 4. Unknown client ids are checked against a decoy hash, so the answer and its timing do not reveal which ids
///    exist; every failure is the same 401.
final class CredentialGate: Sendable {
    struct Configuration: Sendable {
        /// Attempts per source address: 20 at once, one more per second.
        var perAddress = RateLimiter.Configuration(burst: 20, rate: 1)
        /// Attempts per client id: 10 at once, one more every 5 seconds.
        var perClient = RateLimiter.Configuration(burst: 10, rate: 0.2)
        /// How long a verified credential is recognised without hashing.
        var cacheLifetime: Duration = .seconds(60)
        /// PBKDF2 checks running at once.
        var slowChecks = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    }

    private struct Verified {
        var digest: [UInt8]
        var storedHash: String
        var until: ContinuousClock.Instant
    }

    let partners: PartnerDirectory
    let configuration: Configuration
    let perAddress: RateLimiter
    let perClient: RateLimiter
    private let verified = Mutex<[String: Verified]>([:])
    private let slowInFlight = Atomic<Int>(0)
    private let clock: @Sendable () -> ContinuousClock.Instant

    /// Cached verified credentials at most (one per partner; cleared when full).
    static let maximumCached = 10_000

    init(
        partners: PartnerDirectory, configuration: Configuration = Configuration(),
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.partners = partners
        self.configuration = configuration
        self.clock = clock
        perAddress = RateLimiter(configuration.perAddress, clock: clock)
        perClient = RateLimiter(configuration.perClient, clock: clock)
    }

    /// The active partner whose credentials these are, or 401 `UNAUTHORIZED`; 429 `RATE_LIMITED` with
    /// `Retry-After` when `address` or `clientID` made too many attempts or the slow checks are all busy.
    func authenticate(clientID: String, clientSecret: String, address: String) async throws -> Partner {
        let invalid = PlatformError.unauthorized("invalid client credentials")
        let digest = DigestAlgorithm.sha256.hash(Array(clientSecret.utf8)).bytes
        let now = clock()
        if let known = verified.withLock({ $0[clientID] }), known.until > now,
            ConstantTime.equals(known.digest, digest),
            let stored = try await partners.credentials(clientID), stored.secretHash == known.storedHash
        {
            guard stored.partner.isActive else { throw invalid }
            return stored.partner
        }
        for (limiter, key, what) in [(perAddress, address, "address \(address)"), (perClient, clientID, "client id")] {
            if let wait = limiter.acquire(key) {
                let seconds = RateLimiter.retryAfterSeconds(wait)
                throw PlatformError.rateLimited(
                    "too many token requests from this \(what); retry in \(seconds) s", retryAfter: seconds)
            }
        }
        let stored = try await partners.credentials(clientID)
        let current = stored.flatMap { SecretHash(encoded: $0.secretHash) } ?? Self.decoy
        let matchesCurrent = try await check(current, clientSecret)
        var matched = matchesCurrent
        if !matched, let stored, let previous = stored.previousSecretHash.flatMap(SecretHash.init(encoded:)),
            let until = stored.previousSecretExpiresAt, until > milliseconds(partners.now())
        {
            matched = try await check(previous, clientSecret)
        }
        guard matched, let stored, stored.partner.isActive else { throw invalid }
        perAddress.refund(address)
        perClient.refund(clientID)
        // Only the current secret is remembered: the previous one must stop working when its overlap ends.
        if matchesCurrent {
            let entry = Verified(
                digest: digest, storedHash: stored.secretHash, until: now + configuration.cacheLifetime)
            verified.withLock { cache in
                if cache.count >= Self.maximumCached { cache.removeAll() }
                cache[clientID] = entry
            }
        }
        return stored.partner
    }

    /// Checks `secret` against `hash`, taking a slow-check slot for a PBKDF2 hash.
    private func check(_ hash: SecretHash, _ secret: String) async throws -> Bool {
        guard hash.isSlow else { return try await hash.matches(secret) }
        let running = slowInFlight.add(1, ordering: .acquiringAndReleasing).newValue
        defer { slowInFlight.subtract(1, ordering: .acquiringAndReleasing) }
        guard running <= configuration.slowChecks else {
            throw PlatformError.rateLimited("the server is busy checking credentials; retry in 1 s", retryAfter: 1)
        }
        return try await hash.matches(secret)
    }

    /// A hash no secret matches, checked for unknown client ids (in the scheme of generated secrets).
    private static let decoy = SecretHash(
        scheme: .sha256, salt: Array(repeating: 0, count: 16), hash: Array(repeating: 0, count: 32))
}
