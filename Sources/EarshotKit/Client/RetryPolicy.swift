/// How often and how patiently to retry a transient failure (network error, 408, 429, 5xx).
///
/// Delays grow exponentially from ``initialDelay`` by ``multiplier`` up to ``maximumDelay``, each with up to 50 %
/// random jitter so that many clients do not retry in lockstep. Waiting is cancellable.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in total, including the first (1 = no retry).
    public var maxAttempts: Int
    /// The pause before the first retry.
    public var initialDelay: Duration
    /// The longest pause between attempts.
    public var maximumDelay: Duration
    /// Growth factor between pauses.
    public var multiplier: Double

    public init(
        maxAttempts: Int = 5, initialDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(8),
        multiplier: Double = 2
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
    }

    /// No retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The pause before attempt `attempt + 1` (`attempt` ≥ 1), without jitter.
    public func delay(afterAttempt attempt: Int) -> Duration {
        let factor = pow(multiplier, Double(max(0, attempt - 1)))
        let scaled = initialDelay * factor
        return scaled < maximumDelay ? scaled : maximumDelay
    }

    /// Sleeps for ``delay(afterAttempt:)`` plus up to 50 % jitter. Throws `CancellationError` when cancelled.
    func pause(afterAttempt attempt: Int) async throws {
        let base = delay(afterAttempt: attempt)
        try await Task.sleep(for: base + base * Double.random(in: 0...0.5))
    }
}

private func pow(_ base: Double, _ exponent: Double) -> Double {
    var result = 1.0
    var remaining = Int(exponent)
    while remaining > 0 {
        result *= base
        remaining -= 1
    }
    return result
}
