import Synchronization

/// A keyed token-bucket rate limiter with bounded memory: each key (a client id, a source address, an account)
/// gets `burst` requests at once and `rate` more per second after that; a request over its budget learns how long to
/// wait (sent as `Retry-After`).
///
/// At most ``Configuration/maximumKeys`` keys are tracked. When a new key arrives at a full table, keys whose
/// bucket has refilled (they carry no information) are dropped first, then the least recently seen, so a flood of
/// distinct keys cannot grow memory; a dropped key starts again with a full bucket. Thread-safe (a `Mutex`);
/// ``acquire(_:)`` is O(1) except when the table is full (one O(n) sweep, amortised over n/4 insertions).
final class RateLimiter: Sendable {
    struct Configuration: Sendable {
        /// Requests a key may make at once.
        var burst: Double
        /// Requests per second a key regains.
        var rate: Double
        /// Keys tracked at most.
        var maximumKeys = 10_000
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
    }

    let configuration: Configuration
    private let state = Mutex(State())
    private let clock: @Sendable () -> ContinuousClock.Instant

    init(_ configuration: Configuration, clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        precondition(configuration.burst >= 1 && configuration.rate > 0 && configuration.maximumKeys >= 1)
        self.configuration = configuration
        self.clock = clock
    }

    /// Takes one request from `key`'s budget: nil when allowed, else how long to wait before the next one is.
    func acquire(_ key: String) -> Duration? {
        let now = clock()
        let (burst, rate) = (configuration.burst, configuration.rate)
        return state.withLock { state -> Duration? in
            var bucket = state.buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated).seconds * rate)
            bucket.updated = now
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                if state.buckets[key] == nil { makeRoom(&state, now: now) }
                state.buckets[key] = bucket
                return nil
            }
            state.buckets[key] = bucket
            return .milliseconds(Int64(((1 - bucket.tokens) / rate * 1000).rounded(.up)))
        }
    }

    /// Gives back the request `acquire` took from `key` (it turned out not to count, e.g. a successful login when
    /// only failures should use the budget).
    func refund(_ key: String) {
        let burst = configuration.burst
        state.withLock { state in
            guard var bucket = state.buckets[key] else { return }
            bucket.tokens = min(burst, bucket.tokens + 1)
            state.buckets[key] = bucket
        }
    }

    /// Keys tracked now (for tests and metrics).
    var trackedKeys: Int { state.withLock { $0.buckets.count } }

    /// Whole seconds to send as `Retry-After` for a wait (at least 1).
    static func retryAfterSeconds(_ wait: Duration) -> Int {
        max(1, Int(wait.seconds.rounded(.up)))
    }

    private func makeRoom(_ state: inout State, now: ContinuousClock.Instant) {
        guard state.buckets.count >= configuration.maximumKeys else { return }
        let (burst, rate) = (configuration.burst, configuration.rate)
        // Refilled buckets are indistinguishable from new ones: forget them all.
        state.buckets = state.buckets.filter { _, bucket in
            bucket.tokens + (now - bucket.updated).seconds * rate < burst
        }
        guard state.buckets.count >= configuration.maximumKeys else { return }
        // Still full of active keys: drop the least recently seen quarter.
        let drop = max(1, configuration.maximumKeys / 4)
        for (key, _) in state.buckets.sorted(by: { $0.value.updated < $1.value.updated }).prefix(drop) {
            state.buckets[key] = nil
        }
    }
}
