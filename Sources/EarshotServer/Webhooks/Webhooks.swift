import EarshotAPI
import EarshotCore
import EarshotCrypto
import EarshotStore
import Foundation

/// Task webhooks: the delivery rows written when a task becomes final, the per-partner signing secret,
/// redelivery and the delivery log. Each delivery is sent by a ``WebhookJob`` with the delivery's id.
struct Webhooks: Sendable {
    let metadata: any MetadataStore
    /// Deliveries are retried until this long after they are created.
    let retryPeriod: Duration
    /// Wakes this process's webhook senders after a redelivery.
    let signal: JobSignal
    var now: @Sendable () -> Int64 = JobQueue.wallClock

    /// The event name for a final job state.
    static func event(for state: Job.State) -> String {
        switch state {
        case .succeeded: "transcription.succeeded"
        case .cancelled: "transcription.revoked"
        default: "transcription.failed"
        }
    }

    /// Sorted keys: a redelivery of the same event has the same bytes.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Inserts a delivery for `job` if it has a callback URL, and the ``WebhookJob`` that sends it. Runs inside
    /// the queue's final transition (``JobKind/finished(_:_:)``), so a task never becomes final without its webhook
    /// being recorded.
    @discardableResult
    func enqueue(_ db: any SQLDatabase, for job: Job) throws -> String? {
        guard job.kind == TranscriptionJob.name, let payload = try? TranscriptionService.payload(job),
            let url = payload.callbackURL
        else { return nil }
        let id = Identifier.make(prefix: "whd")
        let record = try Library.record(ofJob: job.id, db)
        let task = try TranscriptionService.wire(job, recordID: record?.id, names: record?.speakerNames ?? [:])
        let body = String(decoding: try Self.encoder.encode(task), as: UTF8.self)
        let at = now()
        try db.execute(
            "INSERT INTO webhook_deliveries (id, tenant, job_id, url, event, body, give_up_at, created_at, updated_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            id, job.tenant, job.id, url, Self.event(for: job.state), body, at + retryPeriod.milliseconds, at, at)
        _ = try JobQueue.insert(
            db,
            NewJob(
                id: id, tenant: job.tenant, kind: WebhookJob.name, payload: "{}", maxAttempts: 1_000_000,
                partitionKey: Self.partition(of: url)),
            at: at)
        return id
    }

    /// The partition of a delivery to `url` (its `host:port`, lowercased): the per-host limit counts by it.
    static func partition(of url: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host?.lowercased() else {
            return nil
        }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(host):\(port)"
    }

    /// Deliveries one task may have in all (the first and its redeliveries).
    static let maximumDeliveriesPerTask = 10

    /// Deletes the deliveries of `jobIDs` (tasks being deleted) with their attempts, and returns the ids of the
    /// ``WebhookJob``s that sent them, for the queue to delete too (the queue's ``JobQueue/onDelete``).
    func forget(_ db: any SQLDatabase, jobIDs: [String]) throws -> [String] {
        var senders: [String] = []
        for jobID in jobIDs {
            let deliveries = try db.query("SELECT id FROM webhook_deliveries WHERE job_id = ?", jobID).map {
                try $0.decode("id", as: String.self)
            }
            for delivery in deliveries {
                try db.execute("DELETE FROM webhook_attempts WHERE delivery_id = ?", delivery)
                try db.execute("DELETE FROM webhook_deliveries WHERE id = ?", delivery)
            }
            senders += deliveries
        }
        return senders
    }

    /// Delivers the final-state event of `job` again, as a new delivery with a fresh retry period: at most
    /// ``maximumDeliveriesPerTask`` deliveries per task, and none while another is pending (409 otherwise), so
    /// redelivery cannot multiply the server's outgoing requests.
    func redeliver(_ job: Job) async throws -> WebhookDelivery {
        guard job.state.isFinal else {
            throw PlatformError.conflict("task \(job.id) is not finished; its webhook is sent when it is")
        }
        guard (try TranscriptionService.payload(job)).callbackURL != nil else {
            throw PlatformError.conflict("task \(job.id) has no callback_url")
        }
        let webhooks = self
        let id = try await metadata.write { db in
            let pending = try db.scalar(
                "SELECT COUNT(*) FROM webhook_deliveries d JOIN jobs j ON j.id = d.id "
                    + "WHERE d.job_id = ? AND j.state IN ('queued', 'running')", job.id, as: Int.self) ?? 0
            guard pending == 0 else {
                throw PlatformError.conflict(
                    "task \(job.id) has a delivery still pending; redeliver once it is delivered or failed")
            }
            let count = try db.scalar(
                "SELECT COUNT(*) FROM webhook_deliveries WHERE job_id = ?", job.id, as: Int.self) ?? 0
            guard count < Self.maximumDeliveriesPerTask else {
                throw PlatformError.conflict(
                    "task \(job.id) was delivered \(count) times, the most a task can be; fetch it with GET instead")
            }
            return try webhooks.enqueue(db, for: job) ?? ""
        }
        signal.notify(WebhookJob.name)
        guard let delivery = try await deliveries(of: job.id).first(where: { $0.deliveryID == id }) else {
            throw PlatformError.notFound("delivery \(id) vanished")
        }
        return delivery
    }

    /// Every delivery of the task, oldest first, with its attempts; state, attempts and next attempt come from
    /// the delivery's job.
    func deliveries(of jobID: String) async throws -> [WebhookDelivery] {
        try await metadata.read { db in
            try db.query(
                "SELECT d.id, d.url, d.event, d.created_at, j.state, j.attempts, j.run_after, j.updated_at "
                    + "FROM webhook_deliveries d JOIN jobs j ON j.id = d.id WHERE d.job_id = ? "
                    // The order deliveries were made in: SQLite's rowid, PostgreSQL's identity column.
                    + "ORDER BY d.created_at, d.\(db.dialect == .postgresql ? "seq" : "rowid")", [.text(jobID)]
            ).map { row in
                let id = try row.decode("id", as: String.self)
                let attempts = try db.query(
                    "SELECT attempt, at, status, error, duration_ms FROM webhook_attempts WHERE delivery_id = ? "
                        + "ORDER BY attempt", [.text(id)]
                ).map { attempt in
                    WebhookAttempt(
                        attempt: try attempt.decode("attempt", as: Int.self),
                        atMs: try attempt.decode("at", as: Int64.self),
                        status: try attempt.decode("status", as: Int?.self),
                        error: try attempt.decode("error", as: String?.self),
                        durationMs: try attempt.decode("duration_ms", as: Int.self))
                }
                let state = Job.State(rawValue: try row.decode("state", as: String.self)) ?? .failed
                return WebhookDelivery(
                    deliveryID: id, taskID: jobID, url: try row.decode("url", as: String.self),
                    event: try row.decode("event", as: String.self), state: Self.deliveryState(state),
                    attempts: try row.decode("attempts", as: Int.self),
                    nextAttemptAtMs: try row.decode(state.isFinal ? "updated_at" : "run_after", as: Int64.self),
                    createdAtMs: try row.decode("created_at", as: Int64.self), attemptLog: attempts)
            }
        }
    }

    /// `pending`, `delivered` or `failed`, from the state of the delivery's job.
    static func deliveryState(_ state: Job.State) -> String {
        switch state {
        case .queued, .running: "pending"
        case .succeeded: "delivered"
        case .failed, .cancelled: "failed"
        }
    }

    /// The partner's webhook secret, created on first use (`whsec_` + 256 random bits, base64url).
    func secret(for partnerID: String) async throws -> String {
        let fresh = "whsec_" + Base64URL.encode(try SecureRandom.bytes(32))
        return try await metadata.write { db in
            _ = try db.execute(
                "UPDATE partners SET webhook_secret = ? WHERE id = ? AND webhook_secret IS NULL", fresh, partnerID)
            guard
                let secret = try db.scalar(
                    "SELECT webhook_secret FROM partners WHERE id = ?", partnerID, as: String.self)
            else { throw PlatformError.notFound("no partner \(partnerID)") }
            return secret
        }
    }

    /// `t=<timestamp>,v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`.
    static func signature(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        let mac = HMAC.authenticationCode(
            .sha256, key: Array(secret.utf8), message: WebhookSignature.message(timestamp: timestamp, body: body))
        return "t=\(timestamp),v1=\(mac.hex)"
    }
}
