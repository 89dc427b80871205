internal import Synchronization

/// A fixed set of reader workers lent out one task at a time; tasks wait (in FIFO order) when all are busy.
final class ReaderPool: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<SQLiteWorker, any Error>
    }

    private struct State {
        var idle: [SQLiteWorker]
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var closed = false
    }

    private let state: Mutex<State>
    let size: Int

    init(_ workers: [SQLiteWorker]) {
        self.size = workers.count
        self.state = Mutex(State(idle: workers))
    }

    /// Borrows a reader for the duration of `body`.
    func withReader<T: Sendable>(_ body: (SQLiteWorker) async throws -> T) async throws -> T {
        let worker = try await acquire()
        defer { release(worker) }
        return try await body(worker)
    }

    private func acquire() async throws -> SQLiteWorker {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SQLiteWorker, any Error>) in
                let immediate: Result<SQLiteWorker, any Error>? = state.withLock { state in
                    if state.closed { return .failure(StoreError(.closed, "the metadata store is closed")) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let worker = state.idle.popLast() { return .success(worker) }
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
    }

    /// An idle reader, or nil when all are busy, some task is already waiting (FIFO is kept) or the pool is
    /// closed. Give it back with ``release(_:)``.
    func tryAcquire() -> SQLiteWorker? {
        state.withLock { state in
            guard !state.closed, state.waiters.isEmpty else { return nil }
            return state.idle.popLast()
        }
    }

    func release(_ worker: SQLiteWorker) {
        let waiter = state.withLock { state -> Waiter? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.idle.append(worker)
            return nil
        }
        waiter?.continuation.resume(returning: worker)
    }

    /// Fails every waiting task, waits until every reader is back, and returns them for closing.
    func drain() async -> [SQLiteWorker] {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters {
            waiter.continuation.resume(throwing: StoreError(.closed, "the metadata store is closed"))
        }
        while true {
            let idle = state.withLock { $0.idle.count }
            if idle == size { return state.withLock { $0.idle } }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
