import EarshotCore
import EarshotStore
import Foundation

/// Runs every background job kind of this process over the durable ``JobQueue``: one loop, many kinds.
///
/// For each registered ``JobKind`` it runs `policy.concurrency` workers. A worker claims one due job of its kind
/// (passing over tenants and partitions at their ``JobPolicy`` limits in this process) with a lease, runs it
/// while a watchdog heartbeats (every third of the lease, and when progress changed, at most every 500 ms) and
/// finishes it with a write that only succeeds while it still holds the lease — so a job
/// whose worker was presumed dead and re-queued finishes exactly once. A job revoked or deleted in this process
/// stops within ~100 ms (``RunningJobs``); one revoked or deleted elsewhere, or whose lease was lost, stops at the
/// next heartbeat. A failed attempt is retried with the kind's backoff or failed, as the kind decides. At
/// shutdown (cancellation) running jobs are handed back to the queue without counting the attempt.
///
/// One reaper re-queues expired leases of every kind (a lost lease is not the job's fault: it does not use up
/// the job's attempts; docs/tasks.md) and refreshes the per-kind queue gauges. Idle workers
/// sleep until a job of their kind is added in this process (``JobSignal``) or the poll interval passes.
struct JobRunner: Sendable {
    struct Configuration: Sendable {
        /// How often idle workers look for due jobs added elsewhere (or whose retry delay ran out).
        var pollInterval: Duration = .milliseconds(250)
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
            for kind in registry.kinds {
                for index in 0..<max(kind.policy.concurrency, 0) {
                    group.addTask { await work(kind, owner: "\(processID)-\(kind.name)-\(index)") }
                }
            }
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
    }

    private func process(_ job: Job, kind: any JobKind, owner: String, stop: RunningJobs.Stop) async {
        defer { running.unregister(job.id) }
        let context = JobContext(logger: Logger(label: kind.name), progress: JobProgress())
        logger.info("job started", metadata: ["attempt": "\(job.attempts)", "owner": owner])
        let started = ContinuousClock.now
        do {
            let result = try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask { try await kind.run(job, context: context) }
                group.addTask {
                    try await watch(job, kind: kind, owner: owner, stop: stop, progress: context.progress)
                    return nil
                }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let result { return result }
                }
                throw CancellationError()
            }
            if let finished = try await queue.complete(job.id, owner: owner, result: result) {
                metrics.ran(ContinuousClock.now - started, kind: kind.name)
                metrics.finished(finished)
                logger.info("job succeeded", metadata: ["elapsed": "\(ContinuousClock.now - started)"])
            } else {
                logger.notice("job finished elsewhere; result dropped")
            }
        } catch Stopped.lostLease {
            logger.notice("job stopped: revoked, deleted or lease lost")
        } catch is CancellationError where Task.isCancelled {
            // Shutting down: hand the job back untouched. The write must run although this task is cancelled.
            await Task.detached { try? await queue.release(job.id, owner: owner) }.value
            logger.notice("job returned to the queue at shutdown")
        } catch {
            let failure = (error as? JobFailure)?.failure ?? kind.failure(for: error, job: job)
            let after = try? await queue.fail(job.id, owner: owner, failure)
            metrics.attemptFailed(kind: kind.name)
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
        _ job: Job, kind: any JobKind, owner: String, stop: RunningJobs.Stop, progress: JobProgress
    ) async throws {
        let lease = kind.policy.lease
        let beat = lease / 3
        var last = ContinuousClock.now
        while true {
            try await Task.sleep(for: .milliseconds(100))
            if stop.isSet { throw Stopped.lostLease }
            let now = ContinuousClock.now
            guard now - last >= beat || (progress.isDirty && now - last >= .milliseconds(500)) else { continue }
            let snapshot = progress.take()
            last = now
            let held = try await queue.heartbeat(
                job.id, owner: owner, lease: lease, progress: snapshot.fraction, stage: snapshot.stage)
            if !held { throw Stopped.lostLease }
        }
    }
}
