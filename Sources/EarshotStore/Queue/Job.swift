/// One unit of background work in the durable queue (the `jobs` table).
///
/// A job moves `queued` → `running` (a worker holds a lease) → `succeeded` | `failed` | `cancelled`. A running job
/// whose lease expires goes back to `queued` (or to `failed` once its lost leases reach
/// ``JobQueue/maximumLostLeases``). Times are Unix milliseconds.
public struct Job: Sendable, Hashable, Decodable {
    /// Where a job is in its life.
    public enum State: String, Sendable, Hashable, Codable, CaseIterable {
        case queued, running, succeeded, failed, cancelled

        /// Whether the job will never run again.
        public var isFinal: Bool { self == .succeeded || self == .failed || self == .cancelled }
    }

    public var id: String
    /// The tenant (partner) that owns the job.
    public var tenant: String
    /// Who inside the tenant the job is for (a user id), if anyone.
    public var subject: String?
    /// What the job does (e.g. `transcription`); workers claim one kind.
    public var kind: String
    /// The job's input, as the submitter encoded it (JSON text).
    public var payload: String
    public var state: State
    /// A finer stage the worker reports while running (free text, e.g. `STARTED`).
    public var stage: String?
    /// Fraction done, 0…1, as last reported.
    public var progress: Double
    /// Claims so far (including the running one).
    public var attempts: Int
    /// Attempts the job failed itself (``attempts`` − ``lostLeases``, less the running one) are bounded by this.
    public var maxAttempts: Int
    /// Claims whose lease expired (the process running the job died or hung): not the job's fault, not counted
    /// against ``maxAttempts``, bounded by ``JobQueue/maximumLostLeases``.
    public var lostLeases: Int
    /// What the job competes for (a webhook's callback host), or nil; see
    /// ``JobQueue/claim(kind:owner:lease:skipping:)``.
    public var partitionKey: String?
    /// Not claimed before this time.
    public var runAfter: Int64
    public var leaseOwner: String?
    /// The fencing token of the current (or last) claim: incremented by every claim, named by every transition of
    /// that attempt, so a worker that lost its lease cannot change the job any more.
    public var leaseToken: Int
    public var leaseExpiresAt: Int64?
    public var heartbeatAt: Int64?
    public var idempotencyKey: String?
    /// A digest of the submitted request, compared when the idempotency key is reused.
    public var requestHash: String?
    /// The output of a succeeded job (JSON text).
    public var result: String?
    /// Why the last attempt failed (kept while retrying), or why the job failed.
    public var error: String?
    public var createdAt: Int64
    public var updatedAt: Int64
    public var startedAt: Int64?
    public var finishedAt: Int64?

    enum CodingKeys: String, CodingKey {
        case id, tenant, subject, kind, payload, state, stage, progress, attempts
        case maxAttempts = "max_attempts"
        case lostLeases = "lost_leases"
        case partitionKey = "partition_key"
        case runAfter = "run_after"
        case leaseOwner = "lease_owner"
        case leaseToken = "lease_token"
        case leaseExpiresAt = "lease_expires_at"
        case heartbeatAt = "heartbeat_at"
        case idempotencyKey = "idempotency_key"
        case requestHash = "request_hash"
        case result, error
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case startedAt = "started_at"
        case finishedAt = "finished_at"
    }

    /// The column list a ``Job`` decodes from, qualified by `table` (an alias in a join) when given, for code that
    /// joins its own table to `jobs`.
    public static func columns(of table: String) -> String {
        columns.split(separator: ",").map { "\(table)." + $0.trimmingCharacters(in: .whitespaces) }.joined(
            separator: ", ")
    }

    /// The column list, in `CodingKeys` order, for `SELECT`/`RETURNING`.
    public static let columns =
        "id, tenant, subject, kind, payload, state, stage, progress, attempts, max_attempts, lost_leases, "
        + "partition_key, run_after, lease_owner, lease_token, lease_expires_at, heartbeat_at, idempotency_key, "
        + "request_hash, result, error, created_at, updated_at, started_at, finished_at"
}

/// What a submitter gives ``JobQueue/enqueue(_:)``.
public struct NewJob: Sendable, Hashable {
    public var id: String
    public var tenant: String
    public var subject: String?
    public var kind: String
    public var payload: String
    public var maxAttempts: Int
    public var idempotencyKey: String?
    public var requestHash: String?
    /// Not claimed before this time (Unix milliseconds); nil for now.
    public var runAfter: Int64?
    /// What the job competes for (see ``Job/partitionKey``).
    public var partitionKey: String?

    public init(
        id: String, tenant: String, subject: String? = nil, kind: String, payload: String, maxAttempts: Int = 3,
        idempotencyKey: String? = nil, requestHash: String? = nil, runAfter: Int64? = nil, partitionKey: String? = nil
    ) {
        self.runAfter = runAfter
        self.partitionKey = partitionKey
        self.id = id
        self.tenant = tenant
        self.subject = subject
        self.kind = kind
        self.payload = payload
        self.maxAttempts = max(1, maxAttempts)
        self.idempotencyKey = idempotencyKey
        self.requestHash = requestHash
    }
}
