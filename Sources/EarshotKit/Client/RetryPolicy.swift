public import Foundation

/// How often and how patiently to retry a transient failure (network error, 408, 429, 5xx).
///
/// Delays grow exponentially from ``initialDelay`` by ``multiplier`` up to ``maximumDelay``, each with up to 50 %
/// random jitter so that many clients do not retry in lockstep. Waiting is cancellable. Delays are in seconds
/// (`TimeInterval`, as in URLSession); on iOS 16 / macOS 13 and later (and on Linux) the `Duration` initializer
/// below accepts `.milliseconds(250)` as well.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in total, including the first (1 = no retry).
    public var maxAttempts: Int
    /// The pause before the first retry, in seconds.
    public var initialDelay: TimeInterval
    /// The longest pause between attempts, in seconds.
    public var maximumDelay: TimeInterval
    /// Growth factor between pauses.
    public var multiplier: Double

    /// - Parameters:
    ///   - maxAttempts: attempts in total, including the first (at least 1).
    ///   - initialDelay: seconds before the first retry.
    ///   - maximumDelay: the longest pause in seconds.
    ///   - multiplier: growth factor between pauses.
    public init(
        maxAttempts: Int = 5, initialDelay: TimeInterval = 0.25, maximumDelay: TimeInterval = 8,
        multiplier: Double = 2
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
    }

    /// No retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The pause in seconds before attempt `attempt + 1` (`attempt` ≥ 1), without jitter.
    public func delay(afterAttempt attempt: Int) -> TimeInterval {
        let factor = pow(multiplier, Double(max(0, attempt - 1)))
        return min(initialDelay * factor, maximumDelay)
    }

    /// Sleeps for ``delay(afterAttempt:)`` plus up to 50 % jitter. Throws `CancellationError` when cancelled.
    func pause(afterAttempt attempt: Int) async throws {
        let base = delay(afterAttempt: attempt)
        try await Task.sleep(seconds: base + base * Double.random(in: 0...0.5))
    }
}

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension RetryPolicy {
    /// The same policy with its pauses given as `Duration`s (`.milliseconds(250)`); stored in seconds.
    @_disfavoredOverload
    public init(
        maxAttempts: Int = 5, initialDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(8),
        multiplier: Double = 2
    ) {
        self.init(
            maxAttempts: maxAttempts, initialDelay: initialDelay.timeInterval, maximumDelay: maximumDelay.timeInterval,
            multiplier: multiplier)
    }
}
