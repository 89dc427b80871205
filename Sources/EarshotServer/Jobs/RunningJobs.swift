import Synchronization

/// The jobs this process is running, so a revoke or a delete answered here stops the job at once instead of at
/// its runner's next heartbeat (which still catches revokes and deletes made through another process).
final class RunningJobs: Sendable {
    /// Set when the job must stop; the runner's watchdog polls it.
    final class Stop: Sendable {
        private let flag = Atomic<Bool>(false)
        func set() { flag.store(true, ordering: .relaxed) }
        var isSet: Bool { flag.load(ordering: .relaxed) }
    }

    private let jobs = Mutex<[String: (kind: String, stop: Stop)]>([:])

    func register(_ id: String, kind: String) -> Stop {
        let stop = Stop()
        jobs.withLock { $0[id] = (kind, stop) }
        return stop
    }

    func unregister(_ id: String) { _ = jobs.withLock { $0.removeValue(forKey: id) } }

    /// Asks the runner of each job in `ids` that runs here to stop it.
    func stop(_ ids: [String]) {
        let stops = jobs.withLock { jobs in ids.compactMap { jobs[$0]?.stop } }
        for stop in stops { stop.set() }
    }

    /// How many jobs of each kind run here now.
    var countsByKind: [String: Int] {
        jobs.withLock { jobs in jobs.values.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 } }
    }
}
