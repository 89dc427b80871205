import EarshotCore
import EarshotStore
import Synchronization

/// A kind of background job the ``JobRunner`` runs: transcription, record notes, webhook delivery, and whatever
/// comes next (device import, live-session finalisation). A kind says how to run one claimed job and what
/// follows its final state; the runner does the rest (claims, leases, heartbeats, retries, cancellation,
/// metrics, logging).
protocol JobKind: Sendable {
    /// The queue's `kind` of these jobs.
    var name: String { get }
    /// How many run at once in this process, their lease and their retry backoff.
    var policy: JobPolicy { get }

    /// Runs one claimed job and returns its result (JSON text, stored with the job).
    ///
    /// The runner cancels the calling task when the job is revoked or deleted, when its lease is lost, and at
    /// shutdown; check for cancellation in long loops. Throw ``JobFailure`` to choose how the attempt ends;
    /// any other error goes through ``failure(for:job:)``.
    func run(_ job: Job, context: JobContext) async throws -> String

    /// How an attempt that threw `error` ends (default: retried with the policy's backoff).
    func failure(for error: any Error, job: Job) -> JobQueue.Failure

    /// What must commit with a job's final state (a webhook delivery, a record's new transcript); runs inside the
    /// transaction that makes the job final, whoever makes it so (runner, revoke, lease reaper). Default: nothing.
    func finished(_ db: any SQLDatabase, _ job: Job) throws
}

extension JobKind {
    func failure(for error: any Error, job: Job) -> JobQueue.Failure {
        .retry(reason: "\(error)", attempt: job.attempts, base: policy.retryDelay, maximum: policy.maximumRetryDelay)
    }

    func finished(_ db: any SQLDatabase, _ job: Job) throws {}
}

/// How the runner treats the jobs of one kind.
struct JobPolicy: Sendable {
    /// Jobs of this kind running at once in this process (0: none here; another process runs them).
    var concurrency = 1
    /// How long a claim lasts without a heartbeat (heartbeats come every third of it).
    var lease: Duration = .seconds(30)
    /// Backoff base: a failed attempt waits `retryDelay · 2^(attempt − 1)`.
    var retryDelay: Duration = .seconds(5)
    /// The longest backoff (nil: only the doubling limit of ``JobQueue/Failure/backoff(attempt:base:maximum:)``).
    var maximumRetryDelay: Duration? = nil
    /// At most this many jobs of one tenant run at once in this process (nil: no limit), so one tenant's backlog
    /// leaves workers for the others.
    var tenantLimit: Int? = nil
    /// At most this many jobs of one partition (``Job/partitionKey``: a webhook's host) run at once in this
    /// process (nil: no limit).
    var partitionLimit: Int? = nil
}

/// An error a ``JobKind`` throws to end an attempt in a chosen way.
struct JobFailure: Error, CustomStringConvertible {
    let failure: JobQueue.Failure

    /// Fail the job now: retrying cannot help (bad input, a deleted file).
    static func permanent(_ reason: String) -> JobFailure { JobFailure(failure: .permanent(reason: reason)) }

    /// Retry after `delay` if attempts remain.
    static func retry(_ reason: String, after delay: Duration) -> JobFailure {
        JobFailure(failure: .retry(reason: reason, delay: delay))
    }

    var description: String {
        switch failure {
        case .permanent(let reason), .retry(let reason, _): reason
        }
    }
}

/// What a running job sees of its runner: a logger that names the job, and progress reporting (written with the
/// next heartbeat).
struct JobContext: Sendable {
    /// The job's logger; every line carries its id and kind.
    let logger: Logger
    let progress: JobProgress

    /// Reports how far the job is (0…1, clamped below 1 until it finishes) and/or its stage.
    func report(progress fraction: Double? = nil, stage: String? = nil) {
        progress.update(fraction: fraction.map { min(max($0, 0), 0.99) }, stage: stage)
    }
}

/// Stage and progress a job reports and its runner's watchdog writes with its heartbeats.
final class JobProgress: Sendable {
    struct Value: Sendable {
        var fraction: Double?
        var stage: String?
        var dirty = false
    }

    private let value = Mutex(Value())

    func update(fraction: Double?, stage: String?) {
        value.withLock { value in
            if let fraction { value.fraction = fraction }
            if let stage { value.stage = stage }
            value.dirty = true
        }
    }

    /// The current value, marking it written.
    func take() -> Value {
        value.withLock { value in
            let current = value
            value.dirty = false
            return current
        }
    }

    var isDirty: Bool { value.withLock { $0.dirty } }

    /// The current value, leaving it to be written (for a watcher that only displays it).
    var current: Value { value.withLock { $0 } }
}

/// The kinds one process knows, by name: the runner runs them and the queue's final-state hook dispatches to them.
struct JobRegistry: Sendable {
    let kinds: [any JobKind]

    init(_ kinds: [any JobKind]) {
        self.kinds = kinds
    }

    func kind(named name: String) -> (any JobKind)? { kinds.first { $0.name == name } }

    /// The final-state hook of `job`'s kind (the queue's ``JobQueue/onFinal``).
    func finished(_ db: any SQLDatabase, _ job: Job) throws {
        try kind(named: job.kind)?.finished(db, job)
    }
}
