import EarshotStore
import Synchronization

/// Prometheus metrics of background jobs, per kind: queue depth by state, jobs running in this process, jobs
/// finished by outcome, failed attempts, and histograms of run time (claim → result of a successful attempt) and
/// of total time (created → final state). Plus webhook POSTs by outcome.
final class JobMetrics: Sendable {
    static let buckets: [Double] = [0.05, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600]

    private struct Histogram {
        var buckets = [UInt64](repeating: 0, count: JobMetrics.buckets.count)
        var count: UInt64 = 0
        var sum: Double = 0

        mutating func observe(_ seconds: Double) {
            count += 1
            sum += seconds
            for (index, bound) in JobMetrics.buckets.enumerated() where seconds <= bound { buckets[index] += 1 }
        }
    }

    private struct Kind {
        var depth: [Job.State: Int] = [:]
        var finished: [Job.State: UInt64] = [:]
        var failedAttempts: UInt64 = 0
        var fencedWrites: UInt64 = 0
        var run = Histogram()
        var total = Histogram()
    }

    private struct State {
        var kinds: [String: Kind] = [:]
        var webhookDelivered: UInt64 = 0
        var webhookFailed: UInt64 = 0
    }

    private let state: Mutex<State>
    private let running: RunningJobs

    /// Metrics for `kinds` (each rendered from the start, with zeros), counting `running` jobs.
    init(kinds: [String], running: RunningJobs) {
        self.running = running
        state = Mutex(State(kinds: Dictionary(uniqueKeysWithValues: kinds.map { ($0, Kind()) })))
    }

    func setDepth(_ counts: [Job.State: Int], kind: String) { state.withLock { $0.kinds[kind, default: Kind()].depth = counts } }

    /// Records a successful attempt's run time.
    func ran(_ duration: Duration, kind: String) {
        state.withLock { $0.kinds[kind, default: Kind()].run.observe(duration.seconds) }
    }

    /// Records a failed attempt (retried or final).
    func attemptFailed(kind: String) { state.withLock { $0.kinds[kind, default: Kind()].failedAttempts += 1 } }

    /// Records a result or failure refused because the attempt's lease had been taken over (fencing).
    func fenced(kind: String) { state.withLock { $0.kinds[kind, default: Kind()].fencedWrites += 1 } }

    /// Records a job that reached a final state.
    func finished(_ job: Job) {
        guard job.state.isFinal else { return }
        let seconds = Double(max((job.finishedAt ?? job.updatedAt) - job.createdAt, 0)) / 1000
        state.withLock { state in
            state.kinds[job.kind, default: Kind()].finished[job.state, default: 0] += 1
            state.kinds[job.kind, default: Kind()].total.observe(seconds)
        }
    }

    /// Records one webhook POST.
    func webhookAttempt(delivered: Bool) {
        state.withLock { state in
            if delivered { state.webhookDelivered += 1 } else { state.webhookFailed += 1 }
        }
    }

    /// Webhook POSTs so far: 2xx answers and the rest (`earshot_webhook_attempts_total`).
    var webhookAttempts: (delivered: UInt64, failed: UInt64) {
        state.withLock { ($0.webhookDelivered, $0.webhookFailed) }
    }

    /// The metrics in Prometheus text format.
    func render() -> String {
        let snapshot = state.withLock { $0 }
        let running = running.countsByKind
        let kinds = snapshot.kinds.keys.sorted()
        var out = "# HELP earshot_jobs Jobs in the queue by kind and state (refreshed by the lease reaper).\n"
        out += "# TYPE earshot_jobs gauge\n"
        for kind in kinds {
            for state in Job.State.allCases {
                out += "earshot_jobs{kind=\"\(kind)\",state=\"\(state.rawValue)\"} "
                    + "\(snapshot.kinds[kind]!.depth[state] ?? 0)\n"
            }
        }
        out += "# HELP earshot_jobs_running Jobs this process is running now, by kind.\n"
        out += "# TYPE earshot_jobs_running gauge\n"
        for kind in kinds { out += "earshot_jobs_running{kind=\"\(kind)\"} \(running[kind] ?? 0)\n" }
        out += "# HELP earshot_jobs_finished_total Jobs that reached a final state in this process, by kind and state.\n"
        out += "# TYPE earshot_jobs_finished_total counter\n"
        for kind in kinds {
            for state in Job.State.allCases where state.isFinal {
                out += "earshot_jobs_finished_total{kind=\"\(kind)\",state=\"\(state.rawValue)\"} "
                    + "\(snapshot.kinds[kind]!.finished[state] ?? 0)\n"
            }
        }
        out += "# HELP earshot_job_failed_attempts_total Attempts that failed (retried or final), by kind.\n"
        out += "# TYPE earshot_job_failed_attempts_total counter\n"
        for kind in kinds {
            out += "earshot_job_failed_attempts_total{kind=\"\(kind)\"} \(snapshot.kinds[kind]!.failedAttempts)\n"
        }
        out += "# HELP earshot_job_fenced_writes_total Results and failures refused because the attempt had lost its "
        out += "lease to another worker (fencing token), by kind.\n"
        out += "# TYPE earshot_job_fenced_writes_total counter\n"
        for kind in kinds {
            out += "earshot_job_fenced_writes_total{kind=\"\(kind)\"} \(snapshot.kinds[kind]!.fencedWrites)\n"
        }
        out += histograms(
            "earshot_job_run_seconds", "Run time of successful attempts (claim to result), by kind.",
            kinds.map { ($0, snapshot.kinds[$0]!.run) })
        out += histograms(
            "earshot_job_total_seconds", "Time from a job's creation to its final state, by kind.",
            kinds.map { ($0, snapshot.kinds[$0]!.total) })
        out += "# HELP earshot_webhook_attempts_total Webhook POSTs by outcome (2xx or not).\n"
        out += "# TYPE earshot_webhook_attempts_total counter\n"
        out += "earshot_webhook_attempts_total{outcome=\"delivered\"} \(snapshot.webhookDelivered)\n"
        out += "earshot_webhook_attempts_total{outcome=\"failed\"} \(snapshot.webhookFailed)\n"
        return out
    }

    private func histograms(_ name: String, _ help: String, _ series: [(String, Histogram)]) -> String {
        var out = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (kind, histogram) in series {
            for (index, bound) in Self.buckets.enumerated() {
                out += "\(name)_bucket{kind=\"\(kind)\",le=\"\(bound)\"} \(histogram.buckets[index])\n"
            }
            out += "\(name)_bucket{kind=\"\(kind)\",le=\"+Inf\"} \(histogram.count)\n"
            out += "\(name)_sum{kind=\"\(kind)\"} \(histogram.sum)\n\(name)_count{kind=\"\(kind)\"} \(histogram.count)\n"
        }
        return out
    }
}
