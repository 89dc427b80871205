import Foundation

/// A value guarded by a lock: the SDK's stand-in for `Synchronization.Mutex`, which needs iOS 18 / macOS 15
/// while EarshotKit supports iOS 15 / macOS 12.
///
/// For tiny synchronous state only (a flag, a counter); never hold the lock across an `await`. Same shape as
/// `Mutex.withLock`, so switching back is a one-line change once the floor allows it.
// SAFETY: `value` is read and written only inside `withLock`, between `lock()` and `unlock()` of the one NSLock,
// so every access is serialised across threads; `Value: Sendable` keeps what escapes the closure safe to share.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value. Not reentrant: calling `withLock` inside `body` deadlocks.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        // NSLocking.withLock is iOS 16 / macOS 13: lock and unlock by hand.
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
