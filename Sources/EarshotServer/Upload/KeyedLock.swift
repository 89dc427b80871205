/// Mutual exclusion per key (an upload id) across tasks: part writes, completion, abort and garbage collection
/// of one upload never interleave, so a part cannot change between verification and assembly.
///
/// Waiters are served in arrival order; a released lock passes straight to the next waiter.
actor KeyedLock {
    private var held: Set<String> = []
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Runs `body` while holding the lock for `key`.
    nonisolated func withLock<T: Sendable>(_ key: String, _ body: () async throws -> T) async throws -> T {
        await acquire(key)
        do {
            let result = try await body()
            await release(key)
            return result
        } catch {
            await release(key)
            throw error
        }
    }

    private func acquire(_ key: String) async {
        guard held.contains(key) else {
            held.insert(key)
            return
        }
        await withCheckedContinuation { waiters[key, default: []].append($0) }
    }

    private func release(_ key: String) {
        guard var queue = waiters[key], !queue.isEmpty else {
            held.remove(key)
            return
        }
        let next = queue.removeFirst()
        waiters[key] = queue.isEmpty ? nil : queue
        next.resume()
    }
}
