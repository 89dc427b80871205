/// Bounds how many syntheses of one synthesizer run at once: the rest wait, first come first served, and a
/// cancelled waiter leaves the queue at once.
actor SynthesisSlots {
    private let limit: Int
    private var inUse = 0
    private var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID = 0

    /// Slots for `limit` syntheses at once (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `body` holding a slot; throws `CancellationError` when cancelled while waiting.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async throws {
        try Task.checkCancellation()
        if inUse < limit {
            inUse += 1
            return
        }
        let id = nextID
        nextID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters.append((id, continuation))
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    private func cancel(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    private func release() {
        if waiters.isEmpty {
            inUse -= 1
        } else {
            // The slot passes straight to the oldest waiter.
            waiters.removeFirst().continuation.resume()
        }
    }

    /// Syntheses running and waiting (for tests).
    var load: (running: Int, waiting: Int) { (inUse, waiters.count) }
}
