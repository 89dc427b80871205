internal import EarshotStore
internal import Synchronization

/// Up to `capacity` connections lent out one task at a time; opened on demand, tasks wait (in FIFO order) when all
/// are busy.
final class ConnectionPool: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<PostgresWorker?, any Error>
    }

    private struct State {
        var idle: [PostgresWorker] = []
        var opened = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())
    private let parameters: ConnectionParameters
    let capacity: Int

    init(parameters: ConnectionParameters, capacity: Int, first: PostgresWorker) {
        self.parameters = parameters
        self.capacity = max(capacity, 1)
        state.withLock {
            $0.idle = [first]
            $0.opened = 1
        }
    }

    /// Borrows a connection for the duration of `body`.
    func withConnection<T: Sendable>(_ body: (PostgresWorker) async throws -> T) async throws -> T {
        let worker = try await acquire()
        defer { release(worker) }
        return try await body(worker)
    }

    private func acquire() async throws -> PostgresWorker {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        // nil: the caller may open a new connection (a slot was reserved for it).
        let lent = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PostgresWorker?, any Error>) in
                let immediate: Result<PostgresWorker?, any Error>? = state.withLock { state in
                    if state.closed { return .failure(StoreError(.closed, "the metadata store is closed")) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let worker = state.idle.popLast() { return .success(worker) }
                    if state.opened < capacity {
                        state.opened += 1
                        return .success(nil)
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        if let lent { return lent }
        do {
            let opened = state.withLock { $0.opened }
            return try await PostgresWorker.open(parameters, label: "earshot.store.postgres.\(opened)")
        } catch {
            // Give the slot back (a waiter, if any, may try to open it).
            let waiter = state.withLock { state -> Waiter? in
                state.opened -= 1
                if state.waiters.isEmpty { return nil }
                state.opened += 1
                return state.waiters.removeFirst()
            }
            waiter?.continuation.resume(returning: nil)
            throw error
        }
    }

    private func release(_ worker: PostgresWorker) {
        let waiter = state.withLock { state -> Waiter? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.idle.append(worker)
            return nil
        }
        waiter?.continuation.resume(returning: worker)
    }

    /// Fails every waiting task, waits until every connection is back, and returns them for closing.
    func drain() async -> [PostgresWorker] {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters {
            waiter.continuation.resume(throwing: StoreError(.closed, "the metadata store is closed"))
        }
        while true {
            let (idle, opened) = state.withLock { ($0.idle.count, $0.opened) }
            if idle == opened { return state.withLock { $0.idle } }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
