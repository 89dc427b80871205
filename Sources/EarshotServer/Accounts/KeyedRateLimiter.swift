/// A rule-based front of the shared ``RateLimiter`` for the accounts routes: `limit` requests per `period` per
/// key, refilled continuously; ``check(_:)`` takes one token or throws 429 `RATE_LIMITED` with the seconds until
/// the next one (`Retry-After`).
///
/// In memory, per process (a server behind a load balancer limits per instance). The buckets are the shared
/// limiter's, so memory stays bounded however many distinct keys (addresses, accounts) arrive.
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

    let rule: Rule
    /// What is limited, for the error message ("sign-in attempts from this address").
    let what: String
    private let buckets: RateLimiter

    init(_ rule: Rule, what: String, clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.rule = rule
        self.what = what
        let limit = Double(rule.limit)
        buckets = RateLimiter(.init(burst: limit, rate: limit / Double(rule.period.components.seconds)), clock: clock)
    }

    /// Takes one token for `key`, or throws 429 `RATE_LIMITED` with `Retry-After`.
    func check(_ key: String) throws(PlatformError) {
        guard let wait = buckets.acquire(key) else { return }
        let seconds = RateLimiter.retryAfterSeconds(wait)
        throw PlatformError.rateLimited(
            "too many \(what) (limit \(rule.limit) per \(Self.describe(rule.period))); retry in \(seconds) s",
            retryAfter: seconds)
    }

    private static func describe(_ period: Duration) -> String {
        let seconds = period.components.seconds
        if seconds % 3600 == 0 { return seconds == 3600 ? "hour" : "\(seconds / 3600) hours" }
        if seconds % 60 == 0 { return seconds == 60 ? "minute" : "\(seconds / 60) minutes" }
        return "\(seconds) seconds"
    }
}
