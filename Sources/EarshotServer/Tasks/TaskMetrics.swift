import EarshotStore
import Synchronization

/// Prometheus metrics of transcription tasks: queue depth by state, tasks finished by outcome, and histograms of
/// decode time (claim → result, per successful attempt) and of total time (created → final state).
final class TaskMetrics: Sendable {
    static let buckets: [Double] = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600]

    private struct State {
        var depth: [Job.State: Int] = [:]
        var finished: [Job.State: UInt64] = [:]
        var runBuckets = [UInt64](repeating: 0, count: TaskMetrics.buckets.count)
        var runCount: UInt64 = 0
        var runSum: Double = 0
        var totalBuckets = [UInt64](repeating: 0, count: TaskMetrics.buckets.count)
        var totalCount: UInt64 = 0
        var totalSum: Double = 0
        var webhookDelivered: UInt64 = 0
        var webhookFailed: UInt64 = 0
    }

    private let state = Mutex(State())

    init() {}

    func setDepth(_ counts: [Job.State: Int]) { state.withLock { $0.depth = counts } }

    /// Records a successful attempt's decode time.
    func ran(_ duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        state.withLock { state in
            state.runCount += 1
            state.runSum += seconds
            for (index, bound) in Self.buckets.enumerated() where seconds <= bound { state.runBuckets[index] += 1 }
        }
    }

    /// Records a job that reached a final state.
    func finished(_ job: Job) {
        guard job.state.isFinal else { return }
        let seconds = Double(max((job.finishedAt ?? job.updatedAt) - job.createdAt, 0)) / 1000
        state.withLock { state in
            state.finished[job.state, default: 0] += 1
            state.totalCount += 1
            state.totalSum += seconds
            for (index, bound) in Self.buckets.enumerated() where seconds <= bound { state.totalBuckets[index] += 1 }
        }
    }

    /// Records one webhook POST.
    func webhookAttempt(delivered: Bool) {
        state.withLock { state in
            if delivered { state.webhookDelivered += 1 } else { state.webhookFailed += 1 }
        }
    }

    /// The metrics in Prometheus text format.
    func render() -> String {
        let snapshot = state.withLock { $0 }
        var out = "# HELP earshot_tasks Transcription tasks in the queue by state (refreshed by the lease reaper).\n"
        out += "# TYPE earshot_tasks gauge\n"
        for state in Job.State.allCases {
            out += "earshot_tasks{state=\"\(state.rawValue)\"} \(snapshot.depth[state] ?? 0)\n"
        }
        out += "# HELP earshot_tasks_finished_total Tasks that reached a final state in this process, by state.\n"
        out += "# TYPE earshot_tasks_finished_total counter\n"
        for state in Job.State.allCases where state.isFinal {
            out += "earshot_tasks_finished_total{state=\"\(state.rawValue)\"} \(snapshot.finished[state] ?? 0)\n"
        }
        out += histogram(
            "earshot_task_decode_seconds", "Decode time of successful task attempts.", snapshot.runBuckets,
            snapshot.runCount, snapshot.runSum)
        out += histogram(
            "earshot_task_total_seconds", "Time from task creation to its final state.", snapshot.totalBuckets,
            snapshot.totalCount, snapshot.totalSum)
        out += "# HELP earshot_webhook_attempts_total Webhook POSTs by outcome (2xx or not).\n"
        out += "# TYPE earshot_webhook_attempts_total counter\n"
        out += "earshot_webhook_attempts_total{outcome=\"delivered\"} \(snapshot.webhookDelivered)\n"
        out += "earshot_webhook_attempts_total{outcome=\"failed\"} \(snapshot.webhookFailed)\n"
        return out
    }

    private func histogram(_ name: String, _ help: String, _ buckets: [UInt64], _ count: UInt64, _ sum: Double)
        -> String
    {
        var out = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (index, bound) in Self.buckets.enumerated() {
            out += "\(name)_bucket{le=\"\(bound)\"} \(buckets[index])\n"
        }
        out += "\(name)_bucket{le=\"+Inf\"} \(count)\n\(name)_sum \(sum)\n\(name)_count \(count)\n"
        return out
    }
}
