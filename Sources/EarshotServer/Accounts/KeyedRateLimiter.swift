import Foundation
import Synchronization

/// A token bucket per key: `limit` requests per `period`, refilled continuously; ``check(_:)`` takes one token or
/// throws 429 `RATE_LIMITED` with the seconds until the next one (`Retry-After`).
///
/// In memory, per process (a server behind a load balancer limits per instance). Buckets full again are dropped
/// as they are met, so memory follows the keys active in the last `period`.
///
/// Merge note: issue 13 adds a shared keyed limiter in `Auth/RateLimiter.swift` with the same `check(_:)`; the
/// accounts routes only call `check`, so this type can be replaced by it.
final class KeyedRateLimiter: Sendable {
    /// `limit` per `period`, e.g. 10 per 15 minutes.
    struct Rule: Sendable, Hashable, CustomStringConvertible {
        var limit: Int
        var period: Duration

        init(_ limit: Int, per period: Duration) {
            self.limit = limit
            self.period = period
        }

        /// `10/15m`, `30/1m`, `5/1h`.
        init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1)
            guard parts.count == 2, let limit = Int(parts[0]), limit > 0, let period = parseDuration(String(parts[1])),
                period >= .seconds(1)
            else { return nil }
            self.init(limit, per: period)
        }

        var description: String { "\(limit)/\(period.components.seconds)s" }
    }

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let rule: Rule
    /// What is limited, for the error message ("sign-in attempts from this address").
    let what: String
    private let buckets = Mutex([String: Bucket]())
    private let now: @Sendable () -> Double

    init(_ rule: Rule, what: String, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.rule = rule
        self.what = what
        self.now = now
    }

    /// Takes one token for `key`, or throws 429 `RATE_LIMITED` with `Retry-After`.
    func check(_ key: String) throws(PlatformError) {
        let period = Double(rule.period.components.seconds)
        let rate = Double(rule.limit) / period
        let at = now()
        let wait: Double? = buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: Double(rule.limit), updated: at)
            bucket.tokens = min(Double(rule.limit), bucket.tokens + (at - bucket.updated) * rate)
            bucket.updated = at
            if buckets.count > 10_000 { buckets = buckets.filter { at - $0.value.updated < period } }
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return (1 - bucket.tokens) / rate
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            return nil
        }
        if let wait {
            let seconds = max(1, Int(wait.rounded(.up)))
            throw PlatformError.rateLimited(
                "too many \(what) (limit \(rule.limit) per \(Self.describe(rule.period))); retry in \(seconds) s",
                retryAfter: seconds)
        }
    }

    private static func describe(_ period: Duration) -> String {
        let seconds = period.components.seconds
        if seconds % 3600 == 0 { return seconds == 3600 ? "hour" : "\(seconds / 3600) hours" }
        if seconds % 60 == 0 { return seconds == 60 ? "minute" : "\(seconds / 60) minutes" }
        return "\(seconds) seconds"
    }
}
