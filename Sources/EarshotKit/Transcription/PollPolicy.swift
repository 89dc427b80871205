public import EarshotAPI

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

    /// Polls `fetch` until the task it returns is final, pausing per this policy between polls; `what` names the
    /// task in errors ("transcription task_…"), `revokedReason` adds the server's reason to a revocation. The SDK's
    /// clients wait with it; an app can poll its own backend's view of a task the same way.
    ///
    /// - Returns: the task once `SUCCESS`.
    /// - Throws: ``EarshotError`` ``EarshotError/Code/taskFailed`` (with the task's reason),
    ///   ``EarshotError/Code/taskRevoked``, ``EarshotError/Code/unavailable`` after ``timeout``; `CancellationError`
    ///   when the calling task is cancelled; whatever `fetch` throws.
    public func wait<Polled: Sendable>(
        for what: String, status: (Polled) -> TaskStatus, failure: (Polled) -> String?,
        revokedReason: (Polled) -> String? = { _ in nil }, _ fetch: () async throws -> Polled
    ) async throws -> Polled {
        let clock = ContinuousClock()
        let start = clock.now
        var poll = 1
        while true {
            let task = try await fetch()
            switch status(task) {
            case .success:
                return task
            case .failure:
                throw EarshotError(.taskFailed, "\(what) failed: \(failure(task) ?? "no reason given")")
            case .revoked:
                throw EarshotError(.taskRevoked, "\(what) was revoked" + (revokedReason(task).map { ": \($0)" } ?? ""))
            case let current:
                let pause = interval(afterPoll: poll)
                if let timeout, clock.now - start + pause > timeout {
                    throw EarshotError(.unavailable, "\(what) is still \(current) after \(timeout)")
                }
                try await Task.sleep(for: pause)
                poll += 1
            }
        }
    }
}
