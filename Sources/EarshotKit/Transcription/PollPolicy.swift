public import EarshotAPI
public import Foundation

/// How ``TranscriptionClient/wait(for:policy:)`` polls: intervals growing from ``initialInterval`` by
/// ``multiplier`` up to ``maximumInterval``, giving up after ``timeout``.
///
/// Times are in seconds (`TimeInterval`, as in URLSession); on iOS 16 / macOS 13 and later (and on Linux) the
/// `Duration` initializer below accepts `.milliseconds(500)` as well.
public struct PollPolicy: Sendable, Hashable {
    /// The pause after the first poll, in seconds.
    public var initialInterval: TimeInterval
    /// The longest pause between polls, in seconds.
    public var maximumInterval: TimeInterval
    /// Growth factor between pauses.
    public var multiplier: Double
    /// Total seconds to wait before throwing; nil waits until the task finishes or the caller is cancelled.
    public var timeout: TimeInterval?

    public init(
        initialInterval: TimeInterval = 1, maximumInterval: TimeInterval = 10, multiplier: Double = 1.5,
        timeout: TimeInterval? = nil
    ) {
        self.initialInterval = initialInterval
        self.maximumInterval = maximumInterval
        self.multiplier = multiplier
        self.timeout = timeout
    }

    /// The pause in seconds after poll number `poll` (1-based).
    public func interval(afterPoll poll: Int) -> TimeInterval {
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
        // A monotonic clock (ContinuousClock needs iOS 16): changes of the wall clock do not move the timeout.
        let start = ProcessInfo.processInfo.systemUptime
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
                if let timeout, ProcessInfo.processInfo.systemUptime - start + pause > timeout {
                    throw EarshotError(.unavailable, "\(what) is still \(current) after \(timeout) seconds")
                }
                try await Task.sleep(seconds: pause)
                poll += 1
            }
        }
    }
}

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension PollPolicy {
    /// The same policy with its times given as `Duration`s (`.milliseconds(500)`); stored in seconds.
    @_disfavoredOverload
    public init(
        initialInterval: Duration = .seconds(1), maximumInterval: Duration = .seconds(10), multiplier: Double = 1.5,
        timeout: Duration? = nil
    ) {
        self.init(
            initialInterval: initialInterval.timeInterval, maximumInterval: maximumInterval.timeInterval,
            multiplier: multiplier, timeout: timeout?.timeInterval)
    }
}
