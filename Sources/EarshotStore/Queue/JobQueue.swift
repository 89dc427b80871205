import Foundation

/// The durable job queue over a ``MetadataStore``: enqueue with idempotency keys, claim with a lease, heartbeat,
/// finish exactly once, retry with a bound, re-queue expired leases, cancel.
///
/// Every transition is one write transaction and is conditional on the caller still holding the lease
/// (`lease_owner`, the claim's fencing token `lease_token` and state `running`), so a worker that lost its lease
/// (it was presumed dead, paused or cut off and the job re-queued and claimed again, or the job was cancelled)
/// cannot change the job any more: its late result is refused. On SQLite a claim is one
/// `UPDATE … WHERE id = (SELECT … ORDER BY run_after LIMIT 1) RETURNING …` under the single writer; on PostgreSQL
/// the inner `SELECT` takes the row `FOR UPDATE SKIP LOCKED` in a `READ COMMITTED` transaction, so concurrent
/// claimers in any number of processes never wait for each other or take the same job.
///
/// On PostgreSQL, adding a job and re-queuing an expired one also send a `NOTIFY` on ``notificationChannel`` (with
/// the job's kind) when the transaction commits; ``forwardNotifications()`` turns them into ``signal`` wake-ups, so
/// idle workers on every host start a new job at once instead of at their next poll.
///
/// ``onFinal`` runs inside the transaction that makes a job final (succeeded, failed or cancelled, including
/// failure by lease expiry), so work that must follow a final state (a webhook delivery row) commits with it.
public struct JobQueue: Sendable {
    /// Outcome of a failed attempt.
    public enum Failure: Sendable, Hashable {
        /// Try again after `delay` if attempts remain, else fail the job.
        case retry(reason: String, delay: Duration)
        /// Fail the job now (bad input: retrying cannot help).
        case permanent(reason: String)

        /// Retry with exponential backoff: `base · 2^(attempt − 1)` after the `attempt`-th attempt (the doubling
        /// stops at 2^10), at most `maximum`, so every kind of job backs off the same way.
        public static func retry(reason: String, attempt: Int, base: Duration, maximum: Duration? = nil) -> Failure {
            .retry(reason: reason, delay: backoff(attempt: attempt, base: base, maximum: maximum))
        }

        /// The delay after the `attempt`-th failed attempt: `base · 2^(attempt − 1)`, doubling up to 2^10, capped
        /// at `maximum`.
        public static func backoff(attempt: Int, base: Duration, maximum: Duration? = nil) -> Duration {
            let delay = base * (1 << min(max(attempt - 1, 0), 10))
            return maximum.map { min(delay, $0) } ?? delay
        }
    }

    public let metadata: any MetadataStore
    /// Called in the transaction that makes a job final.
    public var onFinal: @Sendable (any SQLDatabase, Job) throws -> Void
    /// Called in the transaction that deletes jobs, before their rows go, so the owners of rows that refer to
    /// them (webhook deliveries…) delete those first; returns the ids of further jobs that existed only for these
    /// (the jobs sending those deliveries), which are deleted the same way.
    public var onDelete: @Sendable (any SQLDatabase, [String]) throws -> [String]
    /// Wakes this process's workers when a job is added here.
    public let signal: JobSignal
    /// The clock (Unix milliseconds); injectable for tests.
    public var now: @Sendable () -> Int64

    public init(
        metadata: any MetadataStore, onFinal: @escaping @Sendable (any SQLDatabase, Job) throws -> Void = { _, _ in },
        onDelete: @escaping @Sendable (any SQLDatabase, [String]) throws -> [String] = { _, _ in [] },
        signal: JobSignal = JobSignal(), now: @escaping @Sendable () -> Int64 = JobQueue.wallClock
    ) {
        self.metadata = metadata
        self.onFinal = onFinal
        self.onDelete = onDelete
        self.signal = signal
        self.now = now
    }

    /// The PostgreSQL `NOTIFY` channel that carries the kinds of jobs that became due.
    public static let notificationChannel = "earshot_jobs"

    /// Wakes this process's idle workers whenever any process adds a job or re-queues an expired one (PostgreSQL's
    /// `LISTEN`), until cancelled; returns at once on a store without notifications (SQLite: one process).
    public func forwardNotifications() async {
        guard let source = metadata as? any MetadataNotifications else { return }
        for await kind in source.notifications(on: Self.notificationChannel) {
            if Task.isCancelled { return }
            signal.notify(kind)
        }
    }

    /// Sends the `NOTIFY` that wakes workers of `kind` in other processes when the caller's transaction commits.
    static func announce(_ db: any SQLDatabase, kind: String) throws {
        guard db.dialect == .postgresql else { return }
        try db.execute("SELECT pg_notify(?, ?)", notificationChannel, kind)
    }

    /// The system clock in Unix milliseconds.
    public static let wallClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }

    // MARK: Submit

    /// Adds a job, or returns the job already submitted with the same idempotency key.
    ///
    /// - Returns: the job and whether it was created now.
    /// - Throws: ``StoreError`` `.conflict` when the key was used for a different request (another hash).
    public func enqueue(_ new: NewJob) async throws -> (job: Job, created: Bool) {
        let queue = self
        let added = try await metadata.write { db in try queue.insert(db, new) }
        if added.created { signal.notify(new.kind) }
        return added
    }

    /// ``enqueue(_:)`` inside the caller's write transaction, so the job commits (or not) with the caller's rows.
    /// Call ``JobSignal/notify(_:)`` on ``signal`` after the transaction commits to wake this process's workers.
    public func insert(_ db: any SQLDatabase, _ new: NewJob) throws -> (job: Job, created: Bool) {
        try Self.insert(db, new, at: now())
    }

    /// ``insert(_:_:)`` with the time given: for code that adds jobs inside a transaction without a queue value
    /// (a job kind's final-state hook adding a follow-up job).
    public static func insert(_ db: any SQLDatabase, _ new: NewJob, at: Int64) throws -> (job: Job, created: Bool) {
        if let key = new.idempotencyKey,
            let existing = try db.queryFirst(
                "SELECT \(Job.columns) FROM jobs WHERE tenant = ? AND kind = ? AND idempotency_key = ?", new.tenant,
                new.kind, key
            ).map({ try $0.decode(Job.self) })
        {
            guard existing.requestHash == new.requestHash else {
                throw StoreError(
                    .conflict,
                    "Idempotency-Key \"\(key)\" was already used for a different request (job \(existing.id)); "
                        + "send a new key for a new request")
            }
            return (existing, false)
        }
        let row = try db.queryFirst(
            "INSERT INTO jobs (id, tenant, subject, kind, payload, state, progress, attempts, max_attempts, "
                + "run_after, idempotency_key, request_hash, partition_key, created_at, updated_at) "
                + "VALUES (?, ?, ?, ?, ?, 'queued', 0, 0, ?, ?, ?, ?, ?, ?, ?) RETURNING \(Job.columns)",
            new.id, new.tenant, new.subject, new.kind, new.payload, new.maxAttempts, max(new.runAfter ?? at, at),
            new.idempotencyKey, new.requestHash, new.partitionKey, at, at)
        try announce(db, kind: new.kind)
        return (try row!.decode(Job.self), true)
    }

    /// Records a job that already ran to success outside the queue (a synchronous request that kept its
    /// result), inside the caller's transaction, so its history reads like any other job's. ``onFinal`` runs.
    @discardableResult
    public func insertSucceeded(_ db: any SQLDatabase, _ new: NewJob, result: String, startedAt: Int64) throws -> Job {
        let at = now()
        let row = try db.queryFirst(
            "INSERT INTO jobs (id, tenant, subject, kind, payload, state, progress, attempts, max_attempts, "
                + "run_after, idempotency_key, request_hash, result, created_at, updated_at, started_at, finished_at) "
                + "VALUES (?, ?, ?, ?, ?, 'succeeded', 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING \(Job.columns)",
            new.id, new.tenant, new.subject, new.kind, new.payload, new.maxAttempts, startedAt, new.idempotencyKey,
            new.requestHash, result, startedAt, at, startedAt, at)
        let job = try row!.decode(Job.self)
        try onFinal(db, job)
        return job
    }

    /// Deletes jobs (any state) inside the caller's transaction, after ``onDelete`` removed what refers to them.
    /// A worker running one of them loses its lease and stops at its next heartbeat.
    public func delete(_ db: any SQLDatabase, ids: [String]) throws {
        var pending = ids
        while !pending.isEmpty {
            let dependents = try onDelete(db, pending)
            for id in pending { try db.execute("DELETE FROM jobs WHERE id = ?", id) }
            pending = dependents
        }
    }

    // MARK: Work

    /// Tenants and partitions a claim passes over (they are busy in the claiming process).
    public struct Exclusions: Sendable, Hashable {
        public var tenants: Set<String>
        public var partitions: Set<String>

        public init(tenants: Set<String> = [], partitions: Set<String> = []) {
            self.tenants = tenants
            self.partitions = partitions
        }

        public static let none = Exclusions()
    }

    /// Claims the oldest due job of `kind` for `owner` with a lease of `lease`, or nil when none is due. Jobs of
    /// the tenants and partitions in `skipping` are passed over (per-tenant fairness, per-host limits). The job's
    /// ``Job/leaseToken`` is the claim's fencing token: pass it to every later transition of this attempt.
    public func claim(
        kind: String, owner: String, lease: Duration, skipping exclusions: Exclusions = .none
    ) async throws -> Job? {
        let at = now()
        let expires = at + lease.milliseconds
        let tenants = exclusions.tenants.sorted()
        let partitions = exclusions.partitions.sorted()
        var filter = ""
        if !tenants.isEmpty {
            filter += " AND tenant NOT IN (" + Array(repeating: "?", count: tenants.count).joined(separator: ", ") + ")"
        }
        if !partitions.isEmpty {
            filter +=
                " AND (partition_key IS NULL OR partition_key NOT IN ("
                + Array(repeating: "?", count: partitions.count).joined(separator: ", ") + "))"
        }
        let arguments: [SQLValue] =
            [.text(owner), .integer(expires), .integer(at), .integer(at), .integer(at), .text(kind), .integer(at)]
            + tenants.map { .text($0) } + partitions.map { .text($0) }
        let exclusionFilter = filter
        return try await metadata.write(.statement) { db in
            // PostgreSQL: lock the chosen row and skip rows other claimers hold, so claimers never wait or collide.
            let lock = db.dialect == .postgresql ? " FOR UPDATE SKIP LOCKED" : ""
            return try db.query(
                "UPDATE jobs SET state = 'running', stage = NULL, attempts = attempts + 1, lease_owner = ?, "
                    + "lease_token = lease_token + 1, lease_expires_at = ?, heartbeat_at = ?, "
                    + "started_at = COALESCE(started_at, ?), updated_at = ? "
                    + "WHERE id = (SELECT id FROM jobs WHERE state = 'queued' AND kind = ? AND run_after <= ?"
                    + exclusionFilter + " ORDER BY run_after, created_at, id LIMIT 1\(lock)) AND state = 'queued' "
                    + "RETURNING \(Job.columns)",
                arguments
            ).first.map { try $0.decode(Job.self) }
        }
    }

    /// Claims job `id` for `owner` when it is queued and due (a process that created a job and wants to run it
    /// itself, like `earshot notes add`), or nil when it is not (another worker has it, or it is final). Like
    /// ``claim(kind:owner:lease:)`` it takes a new fencing token.
    public func claim(id: String, owner: String, lease: Duration) async throws -> Job? {
        let at = now()
        let expires = at + lease.milliseconds
        return try await metadata.write(.statement) { db in
            try db.queryFirst(
                "UPDATE jobs SET state = 'running', stage = NULL, attempts = attempts + 1, lease_owner = ?, "
                    + "lease_token = lease_token + 1, lease_expires_at = ?, heartbeat_at = ?, "
                    + "started_at = COALESCE(started_at, ?), updated_at = ? "
                    + "WHERE id = ? AND state = 'queued' AND run_after <= ? RETURNING \(Job.columns)",
                owner, expires, at, at, at, id, at
            ).map { try $0.decode(Job.self) }
        }
    }

    /// Extends the lease and records progress/stage. Returns false when the claim `token` of `owner` no longer
    /// holds the job (it was cancelled, or its lease expired and it was re-queued): the worker must stop and not
    /// finish it.
    public func heartbeat(
        _ id: String, owner: String, token: Int, lease: Duration, progress: Double? = nil, stage: String? = nil
    ) async throws -> Bool {
        let at = now()
        return try await metadata.write(.statement) { db in
            try db.execute(
                "UPDATE jobs SET lease_expires_at = ?, heartbeat_at = ?, updated_at = ?, "
                    + "progress = COALESCE(?, progress), stage = COALESCE(?, stage) "
                    + "WHERE id = ? AND lease_owner = ? AND lease_token = ? AND state = 'running'",
                at + lease.milliseconds, at, at, progress, stage, id, owner, token) == 1
        }
    }

    /// Finishes a job successfully with `result`. Returns the finished job, or nil (and changes nothing) if the claim
    /// `token` of `owner` lost the lease: a fenced-out worker's late result is refused.
    @discardableResult
    public func complete(_ id: String, owner: String, token: Int, result: String) async throws -> Job? {
        let at = now()
        let onFinal = self.onFinal
        return try await metadata.write { db in
            guard
                let job = try db.queryFirst(
                    "UPDATE jobs SET state = 'succeeded', result = ?, error = NULL, progress = 1, finished_at = ?, "
                        + "updated_at = ?, lease_owner = NULL, lease_expires_at = NULL "
                        + "WHERE id = ? AND lease_owner = ? AND lease_token = ? AND state = 'running' "
                        + "RETURNING \(Job.columns)",
                    result, at, at, id, owner, token
                ).map({ try $0.decode(Job.self) })
            else { return nil }
            try onFinal(db, job)
            return job
        }
    }

    /// Records a failed attempt: re-queued after the delay while attempts remain, failed otherwise (or at once for
    /// a permanent failure). Only attempts the job failed itself count against `max_attempts`: claims that ended
    /// in a lost lease do not. Returns the job after the change, or nil if the claim `token` of `owner` lost the
    /// lease.
    @discardableResult
    public func fail(_ id: String, owner: String, token: Int, _ failure: Failure) async throws -> Job? {
        let at = now()
        let onFinal = self.onFinal
        let (reason, delay, permanent): (String, Int64, Bool) =
            switch failure {
            case .retry(let reason, let delay): (reason, delay.milliseconds, false)
            case .permanent(let reason): (reason, 0, true)
            }
        return try await metadata.write { db in
            guard
                let job = try db.queryFirst(
                    "UPDATE jobs SET state = CASE WHEN ? = 1 OR attempts - lost_leases >= max_attempts THEN 'failed' "
                        + "ELSE 'queued' END, "
                        + "finished_at = CASE WHEN ? = 1 OR attempts - lost_leases >= max_attempts THEN ? ELSE NULL END, "
                        + "run_after = ?, error = ?, stage = NULL, lease_owner = NULL, lease_expires_at = NULL, "
                        + "updated_at = ? WHERE id = ? AND lease_owner = ? AND lease_token = ? AND state = 'running' "
                        + "RETURNING \(Job.columns)",
                    permanent, permanent, at, at + delay, reason, at, id, owner, token
                ).map({ try $0.decode(Job.self) })
            else { return nil }
            if job.state.isFinal { try onFinal(db, job) }
            return job
        }
    }

    /// Returns a claimed job to the queue without counting the attempt (graceful shutdown), to be claimed again
    /// after `delay`.
    public func release(_ id: String, owner: String, token: Int, after delay: Duration = .zero) async throws {
        let at = now()
        _ = try await metadata.write { db in
            let changed = try db.execute(
                "UPDATE jobs SET state = 'queued', attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END, "
                    + "stage = NULL, progress = 0, lease_owner = NULL, lease_expires_at = NULL, run_after = ?, "
                    + "updated_at = ? WHERE id = ? AND lease_owner = ? AND lease_token = ? AND state = 'running'",
                at + delay.milliseconds, at, id, owner, token)
            if changed == 1, let kind = try db.scalar("SELECT kind FROM jobs WHERE id = ?", id, as: String.self) {
                try Self.announce(db, kind: kind)
            }
        }
    }

    /// Lost leases after which a job fails: a job that keeps taking its process down with it (a file that crashes
    /// the decoder) must not loop for ever, but a few server crashes or deploys during a long job must not fail it.
    public static let maximumLostLeases = 10

    /// Re-queues running jobs whose lease expired (their process died, was killed or hung). That is not the job's
    /// fault: it counts in `lost_leases`, not against `max_attempts`; a job fails only when its lost leases reach
    /// ``maximumLostLeases`` (it probably takes its process down). A re-queued job keeps its `run_after`, so it
    /// goes back to its place at the head of the queue instead of behind every job queued while it ran: recovery
    /// takes the lease plus the reaper's interval, not the whole backlog. Returns the jobs changed.
    @discardableResult
    public func requeueExpired() async throws -> [Job] {
        let at = now()
        let onFinal = self.onFinal
        let limit = Int64(Self.maximumLostLeases)
        return try await metadata.write { db in
            let jobs = try db.query(
                "UPDATE jobs SET lost_leases = lost_leases + 1, "
                    + "state = CASE WHEN lost_leases + 1 >= ? THEN 'failed' ELSE 'queued' END, "
                    + "finished_at = CASE WHEN lost_leases + 1 >= ? THEN ? ELSE NULL END, "
                    + "error = CASE WHEN lost_leases + 1 >= ? THEN 'the process running this job stopped ' "
                    + "|| (lost_leases + 1) || ' times while running it (crashed, killed or hung); it is not retried "
                    + "again' ELSE 'the process running this job stopped (lease expired after attempt ' || attempts "
                    + "|| '); retried' END, "
                    + "stage = NULL, progress = 0, lease_owner = NULL, lease_expires_at = NULL, "
                    + "updated_at = ? WHERE state = 'running' AND lease_expires_at < ? RETURNING \(Job.columns)",
                [.integer(limit), .integer(limit), .integer(at), .integer(limit), .integer(at), .integer(at)]
            ).map { try $0.decode(Job.self) }
            for job in jobs where job.state.isFinal { try onFinal(db, job) }
            for kind in Set(jobs.filter { $0.state == .queued }.map(\.kind)).sorted() {
                try Self.announce(db, kind: kind)
            }
            return jobs
        }
    }

    /// Cancels a queued or running job of `tenant`. Returns the job after the call (unchanged if it was already
    /// final), or nil if the tenant has no such job. A running job's worker notices at its next heartbeat.
    public func cancel(_ id: String, tenant: String, reason: String = "revoked") async throws -> Job? {
        let at = now()
        let onFinal = self.onFinal
        return try await metadata.write { db in
            if let job = try db.queryFirst(
                "UPDATE jobs SET state = 'cancelled', error = ?, finished_at = ?, updated_at = ?, lease_owner = NULL, "
                    + "lease_expires_at = NULL WHERE id = ? AND tenant = ? AND state IN ('queued', 'running') "
                    + "RETURNING \(Job.columns)",
                reason, at, at, id, tenant
            ).map({ try $0.decode(Job.self) }) {
                try onFinal(db, job)
                return job
            }
            return try db.queryFirst("SELECT \(Job.columns) FROM jobs WHERE id = ? AND tenant = ?", id, tenant)
                .map { try $0.decode(Job.self) }
        }
    }

    // MARK: Read

    /// The job `id` of `tenant` (nil for another tenant's job or none).
    public func job(_ id: String, tenant: String) async throws -> Job? {
        try await metadata.read { db in try Self.job(db, id, tenant: tenant) }
    }

    /// The job `id` of `tenant` read through `db` (inside a caller's transaction).
    public static func job(_ db: any SQLDatabase, _ id: String, tenant: String) throws -> Job? {
        try db.queryFirst("SELECT \(Job.columns) FROM jobs WHERE id = ? AND tenant = ?", id, tenant)
            .map { row throws(StoreError) in try Job(row: row) }
    }

    /// The job `id` whatever its tenant (for workers).
    public func job(_ id: String) async throws -> Job? {
        try await metadata.read { db in
            try db.queryFirst("SELECT \(Job.columns) FROM jobs WHERE id = ?", id).map { try $0.decode(Job.self) }
        }
    }

    /// A page of `tenant`'s jobs of `kind`, newest first, after `cursor` (from a previous page's ``JobPage/next``).
    public func list(
        tenant: String, kind: String, subject: String? = nil, state: Job.State? = nil, after cursor: JobPage.Cursor?,
        limit: Int
    ) async throws -> JobPage {
        let limit = min(max(limit, 1), 500)
        return try await metadata.read { db in
            let rows = try db.query(
                "SELECT \(Job.columns) FROM jobs WHERE tenant = ? AND kind = ? AND (? IS NULL OR subject = ?) "
                    + "AND (? IS NULL OR state = ?) "
                    + "AND (? IS NULL OR created_at < ? OR (created_at = ? AND id < ?)) "
                    + "ORDER BY created_at DESC, id DESC LIMIT ?",
                [
                    .text(tenant), .text(kind), subject.sqlValue, subject.sqlValue, state?.rawValue.sqlValue ?? .null,
                    state?.rawValue.sqlValue ?? .null, cursor.map { .integer($0.createdAt) } ?? .null,
                    cursor.map { .integer($0.createdAt) } ?? .null, cursor.map { .integer($0.createdAt) } ?? .null,
                    cursor.map { .text($0.id) } ?? .null, .integer(Int64(limit + 1)),
                ]
            ).map { try $0.decode(Job.self) }
            let page = Array(rows.prefix(limit))
            let next = rows.count > limit ? page.last.map { JobPage.Cursor(createdAt: $0.createdAt, id: $0.id) } : nil
            return JobPage(jobs: page, next: next)
        }
    }

    /// How many jobs of `kind` are in each state (for metrics).
    public func counts(kind: String) async throws -> [Job.State: Int] {
        try await metadata.read { db in
            var counts: [Job.State: Int] = [:]
            for row in try db.query("SELECT state, COUNT(*) AS n FROM jobs WHERE kind = ? GROUP BY state", kind) {
                if let state = Job.State(rawValue: try row.decode("state", as: String.self)) {
                    counts[state] = try row.decode("n", as: Int.self)
                }
            }
            return counts
        }
    }
}

/// One page of ``JobQueue/list(tenant:kind:subject:state:after:limit:)``.
public struct JobPage: Sendable, Hashable {
    /// Where the next page starts: opaque text on the wire (``token``).
    public struct Cursor: Sendable, Hashable {
        public var createdAt: Int64
        public var id: String

        public init(createdAt: Int64, id: String) {
            self.createdAt = createdAt
            self.id = id
        }

        /// `<created_at>.<id>`.
        public var token: String { "\(createdAt).\(id)" }

        /// Parses ``token``; nil if malformed.
        public init?(token: String) {
            guard let dot = token.firstIndex(of: "."), let at = Int64(token[..<dot]) else { return nil }
            let id = String(token[token.index(after: dot)...])
            guard !id.isEmpty else { return nil }
            self.init(createdAt: at, id: id)
        }
    }

    public var jobs: [Job]
    public var next: Cursor?
}
