/// How ``TranscriptionClient/wait(for:policy:)`` polls: intervals growing from ``initialInterval`` by
/// ``multiplier`` up to ``maximumInterval``, giving up after ``timeout``.
public struct PollPolicy: Sendable, Hashable {
    public var initialInterval: Duration
    public var maximumInterval: Duration
    public var multiplier: Double
    /// Total time to wait before throwing; nil waits until the task finishes or the caller is cancelled.
    public var timeout: Duration?

    public init(
        initialInterval: Duration = .seconds(1), maximumInterval: Duration = .seconds(10), multiplier: Double = 1.5,
        timeout: Duration? = nil
    ) {
        self.initialInterval = initialInterval
        self.maximumInterval = maximumInterval
        self.multiplier = multiplier
        self.timeout = timeout
    }

    /// The pause after poll number `poll` (1-based).
    public func interval(afterPoll poll: Int) -> Duration {
        var interval = initialInterval
        for _ in 1..<max(1, poll) {
            interval = interval * multiplier
            if interval >= maximumInterval { return maximumInterval }
        }
        return min(interval, maximumInterval)
    }
}
