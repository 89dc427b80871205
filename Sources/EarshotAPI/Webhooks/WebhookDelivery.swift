/// How webhooks are signed, so receivers can verify them (see docs/tasks.md).
///
/// Every webhook POST carries `Earshot-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256>` where the
/// HMAC key is the partner's webhook secret (`GET /open/partner/webhooks/secret`) and the message is
/// `"<t>.<raw body>"`. Receivers recompute it, compare in constant time, and reject a `t` older than a few
/// minutes (replays).
public enum WebhookSignature {
    /// The header holding the signature.
    public static let header = "Earshot-Signature"
    /// The header naming the event (`transcription.succeeded`, `transcription.failed`, `transcription.revoked`).
    public static let eventHeader = "Earshot-Event"
    /// The header holding the delivery id (the same on every retry of one delivery).
    public static let deliveryHeader = "Earshot-Delivery"

    /// The signed message: `"<timestamp>.<body>"`.
    public static func message(timestamp: Int64, body: [UInt8]) -> [UInt8] {
        Array("\(timestamp).".utf8) + body
    }
}

/// One attempt to deliver a webhook.
public struct WebhookAttempt: Codable, Sendable, Hashable {
    public var attempt: Int
    public var atMs: Int64
    /// The receiver's HTTP status; nil when it did not answer (timeout, refused connection).
    public var status: Int?
    public var error: String?
    public var durationMs: Int

    public init(attempt: Int, atMs: Int64, status: Int?, error: String?, durationMs: Int) {
        self.attempt = attempt
        self.atMs = atMs
        self.status = status
        self.error = error
        self.durationMs = durationMs
    }

    enum CodingKeys: String, CodingKey {
        case attempt, status, error
        case atMs = "at_ms"
        case durationMs = "duration_ms"
    }
}

/// A webhook event to deliver to a task's `callback_url`, with its attempt log.
public struct WebhookDelivery: Codable, Sendable, Hashable {
    public var deliveryID: String
    public var taskID: String
    public var url: String
    public var event: String
    /// `pending` (being retried), `delivered` (a 2xx answer), `failed` (retry period over; redeliver to retry).
    public var state: String
    public var attempts: Int
    public var nextAttemptAtMs: Int64
    public var createdAtMs: Int64
    public var attemptLog: [WebhookAttempt]

    public init(
        deliveryID: String, taskID: String, url: String, event: String, state: String, attempts: Int,
        nextAttemptAtMs: Int64, createdAtMs: Int64, attemptLog: [WebhookAttempt]
    ) {
        self.deliveryID = deliveryID
        self.taskID = taskID
        self.url = url
        self.event = event
        self.state = state
        self.attempts = attempts
        self.nextAttemptAtMs = nextAttemptAtMs
        self.createdAtMs = createdAtMs
        self.attemptLog = attemptLog
    }

    enum CodingKeys: String, CodingKey {
        case deliveryID = "delivery_id"
        case taskID = "task_id"
        case url, event, state, attempts
        case nextAttemptAtMs = "next_attempt_at_ms"
        case createdAtMs = "created_at_ms"
        case attemptLog = "attempt_log"
    }
}

/// `GET /open/partner/transcriptions/{task_id}/webhook/deliveries`.
public struct WebhookDeliveryList: Codable, Sendable, Hashable {
    public var deliveries: [WebhookDelivery]

    public init(deliveries: [WebhookDelivery]) { self.deliveries = deliveries }
}

/// `GET /open/partner/webhooks/secret`.
public struct WebhookSecret: Codable, Sendable, Hashable {
    public var secret: String

    public init(secret: String) { self.secret = secret }
}
