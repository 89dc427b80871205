import Synchronization

/// Wakes idle workers of a job kind when this process adds a job of that kind, so a new job starts at once
/// instead of at the next poll.
///
/// Workers poll anyway (jobs added by another process, retries whose delay ran out), so a lost wake-up only costs
/// one poll interval. A worker reads ``generation(of:)`` before it looks for work and passes it to
/// ``wait(for:after:timeout:)``, which returns at once when a job was added in between.
public final class JobSignal: Sendable {
    private struct State {
        var generations: [String: UInt64] = [:]
        var waiters: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
        var cancelled: Set<Int> = []
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// How many times `kind` was notified so far.
    public func generation(of kind: String) -> UInt64 {
        state.withLock { $0.generations[kind, default: 0] }
    }

    /// Wakes every worker waiting for `kind`.
    public func notify(_ kind: String) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generations[kind, default: 0] &+= 1
            return Array((state.waiters.removeValue(forKey: kind) ?? [:]).values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns when `kind` is notified after `generation`, when `timeout` has passed, or when the task is
    /// cancelled, whichever comes first.
    public func wait(for kind: String, after generation: UInt64, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.notification(of: kind, after: generation) }
            await group.next()
            group.cancelAll()
        }
    }

    private func notification(of kind: String, after generation: UInt64) async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.cancelled.remove(id) != nil || state.generations[kind, default: 0] != generation {
                        return true
                    }
                    state.waiters[kind, default: [:]][id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let waiter = state.waiters[kind]?.removeValue(forKey: id) { return waiter }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.resume()
        }
    }
}
