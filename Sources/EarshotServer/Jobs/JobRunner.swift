import EarshotCore
import EarshotStore
import Foundation
import Synchronization

/// Runs every background job kind of this process over the durable ``JobQueue``: one loop, many kinds.
///
/// For each registered ``JobKind`` it runs `policy.concurrency` workers. A worker claims one due job of its kind
/// (passing over tenants and partitions at their ``JobPolicy`` limits in this process) with a lease, runs it
/// while a watchdog heartbeats (every third of the lease, and when progress changed, at most every 500 ms) and
/// finishes it with a write that only succeeds while it still holds the lease — so a job
/// whose worker was presumed dead and re-queued finishes exactly once. A job revoked or deleted in this process
/// stops within ~100 ms (``RunningJobs``); one revoked or deleted elsewhere, or whose lease was lost, stops at the
/// next heartbeat. A failed attempt is retried with the kind's backoff or failed, as the kind decides. At
/// shutdown (cancellation) workers stop claiming; running jobs get ``Configuration/drainTimeout`` to finish, then
/// are handed back to the queue without counting the attempt. Every transition names the claim's fencing token, so
/// a worker whose lease was taken over (paused, cut off) has its late result refused and counted
/// (`earshot_job_fenced_writes_total`).
///
/// One reaper re-queues expired leases of every kind (a lost lease is not the job's fault: it does not use up
/// the job's attempts; docs/tasks.md) and refreshes the per-kind queue gauges. Idle workers sleep until a job of
/// their kind is added (in this process, or in any process through the store's notifications: PostgreSQL's
/// `LISTEN`) or the poll interval passes.
struct JobRunner: Sendable {
    struct Configuration: Sendable {
        /// How often idle workers look for due jobs added elsewhere (or whose retry delay ran out).
        var pollInterval: Duration = .milliseconds(250)
        /// At shutdown, how long running jobs may go on before they are handed back to the queue (zero: at once).
        var drainTimeout: Duration = .zero
    }

    let queue: JobQueue
    let registry: JobRegistry
    let running: RunningJobs
    let metrics: JobMetrics
    let configuration: Configuration
    let logger = Logger(label: "jobs")
    /// Identifies this process's workers in `lease_owner`.
    let processID = Identifier.make(prefix: "wrk")
    /// Serialises the claims of kinds with tenant or partition limits.
    let claims = KeyedLock()

    /// Runs the workers of every kind and the reaper until cancelled.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await reap() }
            group.addTask { await queue.forwardNotifications() }
            for kind in registry.kinds {
                for index in 0..<max(kind.policy.concurrency, 0) {
                    group.addTask { await work(kind, owner: "\(processID)-\(kind.name)-\(index)") }
                }
            }
        }
    }

    /// Runs job `id` in this task until it is final, whoever runs its attempts: each due attempt is claimed and run
    /// here (reporting to `progress`); an attempt another worker holds, or a retry's backoff, is waited for by
    /// polling. Returns the final job (nil if it was deleted). For a command that adds work and waits for it
    /// (`earshot notes add`) without running anyone else's jobs.
    func drive(_ id: String, progress: JobProgress = JobProgress()) async throws -> Job? {
        while true {
            try Task.checkCancellation()
            guard let current = try await queue.job(id) else { return nil }
            if current.state.isFinal { return current }
            if let kind = registry.kind(named: current.kind),
                let job = try await queue.claim(id: id, owner: "\(processID)-local", lease: kind.policy.lease)
            {
                await LogContext.with(["job_id": job.id, "kind": kind.name]) {
                    let stop = running.register(job.id, kind: kind.name, tenant: job.tenant, partition: job.partitionKey)
                    await process(job, kind: kind, owner: "\(processID)-local", stop: stop, progress: progress)
                }
                continue
            }
            if current.state == .running { progress.update(fraction: current.progress, stage: current.stage) }
            try await Task.sleep(for: configuration.pollInterval)
        }
    }

    /// Re-queues expired leases (every kind) and refreshes the queue gauges.
    private func reap() async {
        let shortestLease = registry.kinds.map(\.policy.lease).min() ?? .seconds(30)
        let interval = min(max(shortestLease / 4, .milliseconds(100)), .seconds(5))
        while !Task.isCancelled {
            do {
                for job in try await queue.requeueExpired() {
                    logger.warning(
                        "job lease expired",
                        metadata: [
                            "job_id": job.id, "kind": job.kind, "state": job.state.rawValue,
                            "attempts": "\(job.attempts)",
                        ])
                    if job.state.isFinal { metrics.finished(job) }
                }
                for kind in registry.kinds {
                    metrics.setDepth(try await queue.counts(kind: kind.name), kind: kind.name)
                }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("lease reaper round failed", metadata: ["error": "\(error)"])
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    private func work(_ kind: any JobKind, owner: String) async {
        while !Task.isCancelled {
            let generation = queue.signal.generation(of: kind.name)
            do {
                if let (job, stop) = try await claim(kind, owner: owner) {
                    // Every line logged while the job runs — by the runner, the kind, or anything they call —
                    // carries its id and kind.
                    await LogContext.with(["job_id": job.id, "kind": kind.name]) {
                        await process(job, kind: kind, owner: owner, stop: stop)
                    }
                    continue
                }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("claiming a job failed", metadata: ["kind": kind.name, "error": "\(error)"])
            }
            await queue.signal.wait(for: kind.name, after: generation, timeout: configuration.pollInterval)
        }
    }

    /// Claims a due job of `kind` and registers it as running here. For a kind with tenant or partition limits,
    /// the claims of its workers are serialised, so that two workers never both see a host below its limit and
    /// both take a job for it.
    private func claim(_ kind: any JobKind, owner: String) async throws -> (Job, RunningJobs.Stop)? {
        let policy = kind.policy
        @Sendable func take() async throws -> (Job, RunningJobs.Stop)? {
            let busy = running.busy(
                kind: kind.name, tenantLimit: policy.tenantLimit, partitionLimit: policy.partitionLimit)
            guard let job = try await queue.claim(kind: kind.name, owner: owner, lease: policy.lease, skipping: busy)
            else { return nil }
            return (job, running.register(job.id, kind: kind.name, tenant: job.tenant, partition: job.partitionKey))
        }
        guard policy.tenantLimit != nil || policy.partitionLimit != nil else { return try await take() }
        return try await claims.withLock(kind.name) { try await take() }
    }

    /// Why a job stopped without a result.
    private enum Stopped: Error {
        /// The job was revoked or deleted, or the lease was lost: someone else owns the outcome now.
        case lostLease
        /// The process is shutting down and the drain time is over: hand the job back.
        case shutdown
    }

    private func process(
        _ job: Job, kind: any JobKind, owner: String, stop: RunningJobs.Stop, progress: JobProgress = JobProgress()
    ) async {
        defer { running.unregister(job.id) }
        let context = JobContext(logger: Logger(label: kind.name), progress: progress)
        logger.info("job started", metadata: ["attempt": "\(job.attempts)", "owner": owner])
        let started = ContinuousClock.now
        let token = job.leaseToken
        let drain = Drain()
        do {
            // The attempt runs in a task of its own so that shutdown (cancellation of this one) lets it drain: the
            // watchdog stops it once the drain time is over.
            let attempt = Task {
                try await withThrowingTaskGroup(of: String?.self) { group in
                    group.addTask { try await kind.run(job, context: context) }
                    group.addTask {
                        try await watch(
                            job, kind: kind, owner: owner, stop: stop, progress: context.progress, drain: drain)
                        return nil
                    }
                    defer { group.cancelAll() }
                    while let result = try await group.next() {
                        if let result { return result }
                    }
                    throw CancellationError()
                }
            }
            let timeout = configuration.drainTimeout
            let result = try await withTaskCancellationHandler {
                try await attempt.value
            } onCancel: {
                drain.begin(timeout: timeout)
                if timeout == .zero { attempt.cancel() }
            }
            // Written even while shutting down (the drained job finished): outside this task's cancellation.
            let finished = try await Task.detached { try await queue.complete(job.id, owner: owner, token: token, result: result) }.value
            if let finished {
                metrics.ran(ContinuousClock.now - started, kind: kind.name)
                metrics.finished(finished)
                logger.info("job succeeded", metadata: ["elapsed": "\(ContinuousClock.now - started)"])
            } else {
                metrics.fenced(kind: kind.name)
                logger.notice("job finished elsewhere; result refused (lease taken over)")
            }
        } catch Stopped.lostLease {
            logger.notice("job stopped: revoked, deleted or lease lost")
        } catch where Task.isCancelled && (error is CancellationError || error as? Stopped == .shutdown) {
            // Shutting down: hand the job back untouched. The write must run although this task is cancelled.
            await Task.detached { try? await queue.release(job.id, owner: owner, token: token) }.value
            logger.notice("job returned to the queue at shutdown")
        } catch {
            let failure = (error as? JobFailure)?.failure ?? kind.failure(for: error, job: job)
            let after = try? await Task.detached { try await queue.fail(job.id, owner: owner, token: token, failure) }
                .value
            metrics.attemptFailed(kind: kind.name)
            if after == nil { metrics.fenced(kind: kind.name) }
            if let after, after.state.isFinal { metrics.finished(after) }
            logger.warning(
                "job attempt failed",
                metadata: [
                    "attempt": "\(job.attempts)", "state": after?.state.rawValue ?? "lost", "error": "\(error)",
                ])
        }
    }

    /// Heartbeats every third of the lease and whenever progress changed (at most every 500 ms), and stops the job
    /// within ~100 ms of a stop in this process or at the first heartbeat that finds the lease gone.
    private func watch(
        _ job: Job, kind: any JobKind, owner: String, stop: RunningJobs.Stop, progress: JobProgress, drain: Drain
    ) async throws {
        let lease = kind.policy.lease
        let beat = lease / 3
        var last = ContinuousClock.now
        while true {
            try await Task.sleep(for: .milliseconds(100))
            if stop.isSet { throw Stopped.lostLease }
            if drain.isOver { throw Stopped.shutdown }
            let now = ContinuousClock.now
            guard now - last >= beat || (progress.isDirty && now - last >= .milliseconds(500)) else { continue }
            let snapshot = progress.take()
            last = now
            let held = try await queue.heartbeat(
                job.id, owner: owner, token: job.leaseToken, lease: lease, progress: snapshot.fraction, stage: snapshot.stage)
            if !held { throw Stopped.lostLease }
        }
    }
}

/// When a draining attempt must stop: set once, at shutdown.
final class Drain: Sendable {
    private let deadline = Mutex<ContinuousClock.Instant?>(nil)

    func begin(timeout: Duration) {
        deadline.withLock { $0 = $0 ?? ContinuousClock.now + timeout }
    }

    var isOver: Bool { deadline.withLock { $0.map { ContinuousClock.now >= $0 } ?? false } }
}
