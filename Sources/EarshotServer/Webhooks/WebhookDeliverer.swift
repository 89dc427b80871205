import EarshotAPI
import EarshotCore
import EarshotStore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends pending webhook deliveries: signed POSTs, retried with exponential backoff on a non-2xx answer or a
/// timeout until the delivery's retry period is over, every attempt logged in `webhook_attempts`. Runs as a child
/// of `Application.run` until cancelled.
///
/// A delivery is claimed by pushing its `next_attempt_at` past the request timeout in the same write that counts
/// the attempt, so several processes never send the same attempt twice; a process killed mid-attempt leaves the
/// delivery due again once that time passes (delivery is at-least-once: receivers dedupe on `Earshot-Delivery`).
struct WebhookDeliverer: Sendable {
    struct Configuration: Sendable {
        var timeout: Duration = .seconds(10)
        var retryDelay: Duration = .seconds(5)
        var maximumDelay: Duration = .seconds(3600)
        var pollInterval: Duration = .milliseconds(250)
    }

    private struct Claimed: Sendable {
        var id: String
        var tenant: String
        var url: String
        var event: String
        var body: String
        var attempts: Int
        var giveUpAt: Int64
    }

    let metadata: any MetadataStore
    let webhooks: Webhooks
    let metrics: TaskMetrics
    let configuration: Configuration
    var now: @Sendable () -> Int64 = JobQueue.wallClock
    let logger = Logger(label: "webhooks")

    func run() async {
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        while !Task.isCancelled {
            do {
                if let delivery = try await claim() {
                    try await attempt(delivery, session: session)
                    continue
                }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("webhook round failed", metadata: ["error": "\(error)"])
            }
            do { try await Task.sleep(for: configuration.pollInterval) } catch { return }
        }
    }

    private func claim() async throws -> Claimed? {
        let at = now()
        let hold = at + configuration.timeout.milliseconds + 5_000
        return try await metadata.write { db in
            guard
                let row = try db.queryFirst(
                    "UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?, updated_at = ? "
                        + "WHERE id = (SELECT id FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= ? "
                        + "ORDER BY next_attempt_at LIMIT 1) "
                        + "RETURNING id, tenant, url, event, body, attempts, give_up_at",
                    hold, at, at)
            else { return nil }
            return Claimed(
                id: try row.decode("id"), tenant: try row.decode("tenant"), url: try row.decode("url"),
                event: try row.decode("event"), body: try row.decode("body"), attempts: try row.decode("attempts"),
                giveUpAt: try row.decode("give_up_at"))
        }
    }

    private func attempt(_ delivery: Claimed, session: URLSession) async throws {
        let secret = try await webhooks.secret(for: delivery.tenant)
        let body = Array(delivery.body.utf8)
        let started = now()
        var request = URLRequest(url: URL(string: delivery.url)!)
        request.httpMethod = "POST"
        request.timeoutInterval = Double(configuration.timeout.milliseconds) / 1000
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Earshot-Webhooks/\(EarshotVersion.current)", forHTTPHeaderField: "User-Agent")
        request.setValue(delivery.event, forHTTPHeaderField: WebhookSignature.eventHeader)
        request.setValue(delivery.id, forHTTPHeaderField: WebhookSignature.deliveryHeader)
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
            failure = "\(error.localizedDescription)"
        }
        try Task.checkCancellation()
        let finished = now()
        let delivered = failure == nil
        let factor = Int64(1) << Int64(min(max(delivery.attempts - 1, 0), 20))
        let delay = min(configuration.retryDelay.milliseconds * factor, configuration.maximumDelay.milliseconds)
        let next = finished + delay
        let state = delivered ? "delivered" : (next > delivery.giveUpAt ? "failed" : "pending")
        let (answered, reason) = (status, failure)
        try await metadata.write { db in
            _ = try db.execute(
                "INSERT INTO webhook_attempts (delivery_id, attempt, at, status, error, duration_ms) "
                    + "VALUES (?, ?, ?, ?, ?, ?)",
                delivery.id, delivery.attempts, started, answered, reason, Int(finished - started))
            _ = try db.execute(
                "UPDATE webhook_deliveries SET state = ?, next_attempt_at = ?, updated_at = ? WHERE id = ?", state,
                delivered ? finished : next, finished, delivery.id)
        }
        metrics.webhookAttempt(delivered: delivered)
        if delivered {
            logger.info("webhook delivered", metadata: ["delivery": delivery.id, "attempt": "\(delivery.attempts)"])
        } else {
            logger.warning(
                "webhook attempt failed",
                metadata: [
                    "delivery": delivery.id, "attempt": "\(delivery.attempts)", "error": failure ?? "",
                    "state": state,
                ])
        }
    }
}
