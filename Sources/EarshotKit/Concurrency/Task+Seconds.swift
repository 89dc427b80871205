import Foundation

extension Task where Success == Never, Failure == Never {
    /// Sleeps for `seconds` (at most a year; zero when not positive); throws `CancellationError` when the task is
    /// cancelled.
    ///
    /// Over `Task.sleep(nanoseconds:)` because `Task.sleep(for:)` and `Duration` need iOS 16 / macOS 13.
    static func sleep(seconds: TimeInterval) async throws {
        let nanoseconds = seconds > 0 ? UInt64(min(seconds, 365 * 86_400) * 1_000_000_000) : 0
        try await sleep(nanoseconds: nanoseconds)
    }
}
