/// Admission control for the synchronous OpenAI-compatible endpoints, which share the speech engine's decode
/// slots with the queue workers.
///
/// At most ``Configuration/slots`` requests are inside the engine at once. Up to as many more wait, first come
/// first served, for at most ``Configuration/maxWait``; anything beyond that, or a wait that times out, is
/// refused with ``PlatformError/Code/rateLimited`` and a `Retry-After` estimated from recent decode times, so an
/// OpenAI client (which retries 429 after `Retry-After`) backs off instead of piling up open connections.
actor DecodeAdmission {
    struct Configuration: Sendable {
        /// Requests decoding at once (`openai-concurrency`).
        var slots: Int
        /// Requests allowed to wait for a slot (the same number as ``slots``).
        var maxWaiting: Int
        /// The longest a request waits for a slot before it is refused.
        var maxWait: Duration
        /// What the slots run, plural, for the 429's message.
        var work = "synchronous transcriptions"
        /// What else the client can do, for the 429's message.
        var alternative = "submit a task (POST /open/partner/transcriptions)"
    }

    let configuration: Configuration
    private var inUse = 0
    private var waiters: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    private var expired: Set<Int> = []
    private var nextID = 0
    /// Exponentially weighted mean of recent admitted requests' time in the engine, for `Retry-After`.
    private var meanBusy: Duration = .seconds(2)

    init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Runs `body` holding a slot. Throws ``PlatformError/Code/rateLimited`` when no slot frees up in time, or
    /// `CancellationError` when the request is cancelled while waiting.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let start = try await enter()
        defer { leave(since: start) }
        return try await body()
    }

    /// Takes a slot for work that outlives the call (a streamed response, whose 429 must come before its headers);
    /// pair it with ``leave(since:)``. Throws like ``run(_:)``.
    func enter() async throws -> ContinuousClock.Instant {
        try await acquire()
        return ContinuousClock.now
    }

    /// Takes a slot only if the engine is idle now (no decode running, nobody waiting): for work that is worth doing
    /// only without delay and must not slow anything else down (a live session's partial text: beside another decode
    /// on a small machine, both would run at half speed and the final text would come later). Pair it with
    /// ``leave(since:)``.
    func enterIfIdle() -> ContinuousClock.Instant? {
        guard inUse == 0, waiters.isEmpty else { return nil }
        inUse += 1
        return ContinuousClock.now
    }

    /// Gives back a slot taken by ``enter()`` at `start`.
    func leave(since start: ContinuousClock.Instant) {
        release(busy: ContinuousClock.now - start)
    }

    private func acquire() async throws {
        if inUse < configuration.slots {
            inUse += 1
            return
        }
        guard waiters.count < configuration.maxWaiting else {
            throw PlatformError.rateLimited(
                "\(configuration.slots) \(configuration.work) are running and \(waiters.count) waiting; "
                    + "retry later or \(configuration.alternative)",
                retryAfter: retryAfter())
        }
        let id = nextID
        nextID += 1
        // The timer child ends the wait on timeout or cancellation; it is cancelled as soon as the slot is granted.
        let granted = await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: self.configuration.maxWait)
                await self.expire(id)
            }
            let granted = await withCheckedContinuation { continuation in
                if expired.remove(id) != nil {
                    continuation.resume(returning: false)
                } else {
                    waiters.append((id, continuation))
                }
            }
            group.cancelAll()
            return granted
        }
        expired.remove(id)
        // A granted slot is kept even if the request was cancelled meanwhile: `run` releases it after `body`.
        if granted { return }
        try Task.checkCancellation()
        throw PlatformError.rateLimited(
            "no slot for \(configuration.work) became free within \(configuration.maxWait); retry later or "
                + configuration.alternative,
            retryAfter: retryAfter())
    }

    /// Ends waiter `id` without a slot (timeout or cancellation); a no-op when it already got one.
    private func expire(_ id: Int) {
        if let index = waiters.firstIndex(where: { $0.id == id }) {
            waiters.remove(at: index).continuation.resume(returning: false)
        } else {
            // The timer may fire before the waiter registered; remember it so registration fails at once.
            expired.insert(id)
        }
    }

    private func release(busy: Duration) {
        meanBusy = meanBusy * 0.7 + busy * 0.3
        if waiters.isEmpty {
            inUse -= 1
        } else {
            // Hand the slot straight to the oldest waiter.
            waiters.removeFirst().continuation.resume(returning: true)
        }
    }

    /// Seconds until a slot is likely free: the mean decode time times the requests ahead, 1…60.
    private func retryAfter() -> Int {
        let ahead = Double(waiters.count + 1) / Double(max(1, configuration.slots))
        return min(60, max(1, Int((meanBusy.seconds * ahead).rounded(.up))))
    }

    /// Requests holding a slot and waiting for one (for tests and metrics).
    var load: (running: Int, waiting: Int) { (inUse, waiters.count) }
}
