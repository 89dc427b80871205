import EarshotAPI
import EarshotCore
import EarshotCrypto
import EarshotStore
import Foundation

/// Task webhooks: the delivery rows written when a task becomes final, the per-partner signing secret,
/// redelivery and the delivery log. ``WebhookDeliverer`` sends them.
struct Webhooks: Sendable {
    let metadata: any MetadataStore
    /// Deliveries are retried until this long after they are created.
    let retryPeriod: Duration
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

    /// Inserts a delivery for `job` if it has a callback URL. Runs inside the queue's final transition
    /// (``JobQueue/onFinal``), so a task never becomes final without its webhook being recorded.
    @discardableResult
    func enqueue(_ db: any SQLDatabase, for job: Job) throws -> String? {
        guard job.kind == TranscriptionService.kind, let payload = try? TranscriptionService.payload(job),
            let url = payload.callbackURL
        else { return nil }
        let id = Identifier.make(prefix: "whd")
        let body = String(decoding: try Self.encoder.encode(try TranscriptionService.wire(job)), as: UTF8.self)
        let at = now()
        _ = try db.execute(
            "INSERT INTO webhook_deliveries (id, tenant, job_id, url, event, body, state, attempts, next_attempt_at, "
                + "give_up_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)",
            id, job.tenant, job.id, url, Self.event(for: job.state), body, at,
            at + retryPeriod.components.seconds * 1000, at, at)
        return id
    }

    /// Delivers the final-state event of `job` again, as a new delivery with a fresh retry period.
    func redeliver(_ job: Job) async throws -> WebhookDelivery {
        guard job.state.isFinal else {
            throw PlatformError.conflict("task \(job.id) is not finished; its webhook is sent when it is")
        }
        guard (try TranscriptionService.payload(job)).callbackURL != nil else {
            throw PlatformError.conflict("task \(job.id) has no callback_url")
        }
        let webhooks = self
        let id = try await metadata.write { db in try webhooks.enqueue(db, for: job) ?? "" }
        guard let delivery = try await deliveries(of: job.id).first(where: { $0.deliveryID == id }) else {
            throw PlatformError.notFound("delivery \(id) vanished")
        }
        return delivery
    }

    /// Every delivery of the task, oldest first, with its attempts.
    func deliveries(of jobID: String) async throws -> [WebhookDelivery] {
        try await metadata.read { db in
            try db.query(
                "SELECT id, url, event, state, attempts, next_attempt_at, created_at FROM webhook_deliveries "
                    + "WHERE job_id = ? ORDER BY created_at, rowid", [.text(jobID)]
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
                return WebhookDelivery(
                    deliveryID: id, taskID: jobID, url: try row.decode("url", as: String.self),
                    event: try row.decode("event", as: String.self), state: try row.decode("state", as: String.self),
                    attempts: try row.decode("attempts", as: Int.self),
                    nextAttemptAtMs: try row.decode("next_attempt_at", as: Int64.self),
                    createdAtMs: try row.decode("created_at", as: Int64.self), attemptLog: attempts)
            }
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
