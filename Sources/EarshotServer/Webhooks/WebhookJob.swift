import EarshotAPI
import EarshotCore
import EarshotStore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `webhook` job kind: sends one delivery (the job's id is the delivery's) as a signed POST, logs every attempt
/// in `webhook_attempts`, and retries a non-2xx answer or a timeout with the policy's backoff until the
/// delivery's retry period is over. Delivery is at-least-once (a process killed mid-attempt sends again once the
/// lease expires): receivers dedupe on `Earshot-Delivery`.
struct WebhookJob: JobKind {
    static let name = "webhook"
    var name: String { Self.name }

    let policy: JobPolicy
    /// The time one POST may take.
    let timeout: Duration
    let metadata: any MetadataStore
    let webhooks: Webhooks
    let metrics: JobMetrics
    let session: URLSession

    private struct Delivery: Sendable {
        var tenant: String
        var url: String
        var event: String
        var body: String
        var giveUpAt: Int64
    }

    func run(_ job: Job, context: JobContext) async throws -> String {
        guard
            let delivery = try await metadata.read({ db in
                try db.queryFirst(
                    "SELECT tenant, url, event, body, give_up_at FROM webhook_deliveries WHERE id = ?", job.id
                ).map { row in
                    Delivery(
                        tenant: try row.decode("tenant"), url: try row.decode("url"), event: try row.decode("event"),
                        body: try row.decode("body"), giveUpAt: try row.decode("give_up_at"))
                }
            })
        else { throw JobFailure.permanent("delivery \(job.id) no longer exists") }
        guard let url = URL(string: delivery.url) else {
            throw JobFailure.permanent("callback_url \(delivery.url) is not a URL")
        }
        let secret = try await webhooks.secret(for: delivery.tenant)
        let body = Array(delivery.body.utf8)
        let started = JobQueue.wallClock()
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.timeoutInterval = Double(timeout.milliseconds) / 1000
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Earshot-Webhooks/\(EarshotVersion.current)", forHTTPHeaderField: "User-Agent")
        request.setValue(delivery.event, forHTTPHeaderField: WebhookSignature.eventHeader)
        request.setValue(job.id, forHTTPHeaderField: WebhookSignature.deliveryHeader)
        request.setValue(
            Webhooks.signature(secret: secret, timestamp: started / 1000, body: body),
            forHTTPHeaderField: WebhookSignature.header)
        var status: Int?
        var failure: String?
        do {
            let (_, response) = try await session.data(for: request)
            status = (response as? HTTPURLResponse)?.statusCode
            if let status, !(200..<300).contains(status) { failure = "HTTP \(status)" }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            failure = error.localizedDescription
        }
        try Task.checkCancellation()
        let finished = JobQueue.wallClock()
        let (answered, reason) = (status, failure)
        try await metadata.write { db in
            try db.execute(
                "INSERT INTO webhook_attempts (delivery_id, attempt, at, status, error, duration_ms) "
                    + "VALUES (?, ?, ?, ?, ?, ?)",
                job.id, job.attempts, started, answered, reason, Int(finished - started))
        }
        metrics.webhookAttempt(delivered: failure == nil)
        guard let failure else { return "{\"status\":\(status ?? 0)}" }
        let delay = JobQueue.Failure.backoff(
            attempt: job.attempts, base: policy.retryDelay, maximum: policy.maximumRetryDelay)
        if finished + delay.milliseconds > delivery.giveUpAt {
            throw JobFailure.permanent("\(failure); gave up after \(job.attempts) attempts (the retry period is over)")
        }
        throw JobFailure.retry(failure, after: delay)
    }
}
