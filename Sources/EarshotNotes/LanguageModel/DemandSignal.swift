import Synchronization

/// A one-shot wake-up for a single waiter: ``wait()`` returns once ``fire()`` was called (before or during the
/// wait) or when the waiting task is cancelled. ``reset()`` re-arms it.
final class DemandSignal: Sendable {
    private struct State {
        var fired = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    /// Wakes the waiter, or lets the next ``wait()`` return at once.
    func fire() {
        state.withLock { state in
            state.fired = true
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }?.resume()
    }

    /// Re-arms the signal: the next ``wait()`` suspends until the next ``fire()``.
    func reset() {
        state.withLock { $0.fired = false }
    }

    /// Suspends until fired or cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.fired || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                let waiter = state.waiter
                state.waiter = nil
                return waiter
            }?.resume()
        }
    }
}
