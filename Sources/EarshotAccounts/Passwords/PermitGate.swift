import Synchronization

/// A counting semaphore for async callers: ``acquire()`` waits (cancellably, in arrival order) until one of
/// `permits` is free. Used to bound concurrent password hashes.
final class PermitGate: Sendable {
    private struct State {
        var available: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    init(permits: Int) {
        state = Mutex(State(available: permits))
    }

    /// Takes a permit, waiting for one; throws `CancellationError` if the task is cancelled while waiting.
    func acquire() async throws {
        let id = state.withLock { state -> UInt64? in
            if state.available > 0 {
                state.available -= 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.waiters.append((id, continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Returns a permit, handing it to the longest waiter if there is one.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
