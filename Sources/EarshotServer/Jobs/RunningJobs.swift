import EarshotStore
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

    private struct Entry {
        var kind: String
        var tenant: String
        var partition: String?
        var stop: Stop
    }

    private let jobs = Mutex<[String: Entry]>([:])

    func register(_ id: String, kind: String, tenant: String = "", partition: String? = nil) -> Stop {
        let stop = Stop()
        jobs.withLock { $0[id] = Entry(kind: kind, tenant: tenant, partition: partition, stop: stop) }
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

    /// The tenants with at least `tenantLimit` running jobs of `kind` here, and the partitions with at least
    /// `partitionLimit`: what the next claim of that kind passes over.
    func busy(kind: String, tenantLimit: Int?, partitionLimit: Int?) -> JobQueue.Exclusions {
        guard tenantLimit != nil || partitionLimit != nil else { return .none }
        return jobs.withLock { jobs in
            var tenants: [String: Int] = [:]
            var partitions: [String: Int] = [:]
            for entry in jobs.values where entry.kind == kind {
                tenants[entry.tenant, default: 0] += 1
                if let partition = entry.partition { partitions[partition, default: 0] += 1 }
            }
            func atLimit(_ counts: [String: Int], _ limit: Int?) -> Set<String> {
                guard let limit else { return [] }
                return Set(counts.filter { $0.value >= limit }.map(\.key))
            }
            return JobQueue.Exclusions(
                tenants: atLimit(tenants, tenantLimit), partitions: atLimit(partitions, partitionLimit))
        }
    }
}
