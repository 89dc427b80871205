import Synchronization

/// The tasks this process is decoding, so a revoke answered here stops the decode at once instead of at the
/// worker's next heartbeat (which still catches revokes made through another process).
final class RunningTasks: Sendable {
    /// Set when the task must stop; the worker's watchdog polls it.
    final class Stop: Sendable {
        private let flag = Atomic<Bool>(false)
        func set() { flag.store(true, ordering: .relaxed) }
        var isSet: Bool { flag.load(ordering: .relaxed) }
    }

    private let tasks = Mutex<[String: Stop]>([:])

    func register(_ id: String) -> Stop {
        let stop = Stop()
        tasks.withLock { $0[id] = stop }
        return stop
    }

    func unregister(_ id: String) { _ = tasks.withLock { $0.removeValue(forKey: id) } }

    /// Asks the worker running `id` (if it runs here) to stop.
    func stop(_ id: String) { tasks.withLock { $0[id] }?.set() }

    var count: Int { tasks.withLock { $0.count } }
}
