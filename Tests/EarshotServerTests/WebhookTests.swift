import EarshotAPI
import EarshotCrypto
import EarshotHTTP
import Foundation
import Synchronization
import Testing

@testable import EarshotServer

/// Task webhooks delivered to a real receiver (an EarshotHTTP server on port 0): the signature verifies with the
/// partner's secret, a 500 is retried with backoff, every attempt is logged, redelivery sends it again, and a
/// receiver that never succeeds is given up on after the retry period.
@Suite struct WebhookTests {
    /// A receiver that answers each POST with the next status of `statuses` (the last one repeats).
    final class Receiver: Sendable {
        struct Received: Sendable {
            let headers: HTTPHeaders
            let body: [UInt8]
            let at: ContinuousClock.Instant
        }
        let statuses: [Int]
        /// How long the first answer is held back (to make the sender time out).
        let firstDelay: Duration
        let received = Mutex<[Received]>([])
        init(statuses: [Int], firstDelay: Duration = .zero) {
            self.statuses = statuses
            self.firstDelay = firstDelay
        }

        var all: [Received] { received.withLock { $0 } }

        func run(_ body: @Sendable (String) async throws -> Void) async throws {
            let router = Router()
            router.post("/hook") { request, _ in
                let count = self.received.withLock {
                    $0.append(Received(headers: request.headers, body: request.bytes, at: .now))
                    return $0.count
                }
                if count == 1, self.firstDelay > .zero { try? await Task.sleep(for: self.firstDelay) }
                return .empty(status: HTTPStatus(code: self.statuses[min(count - 1, self.statuses.count - 1)]))
            }
            let server = HTTPServer(router: router, configuration: .init(host: "127.0.0.1", port: 0))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                let port = try await server.waitUntilListening()
                try await body("http://127.0.0.1:\(port)/hook")
                group.cancelAll()
            }
        }

        func wait(for count: Int, timeout: Duration = .seconds(20)) async throws {
            let deadline = ContinuousClock.now + timeout
            while all.count < count {
                guard ContinuousClock.now < deadline else {
                    Issue.record("received \(all.count) webhooks, expected \(count)")
                    return
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    static let fast: @Sendable (inout ServerConfiguration) -> Void = {
        $0.workers = 0
        $0.webhookRetryDelay = .milliseconds(300)
        $0.taskPollInterval = .milliseconds(50)
    }

    /// Polls a task's first webhook delivery until it reaches `state` (or 15 s pass); returns it as last seen.
    static func firstDelivery(
        of taskID: String, reaching state: String, _ platform: TestPlatform, _ token: String
    ) async throws -> WebhookDelivery? {
        let deadline = ContinuousClock.now + .seconds(15)
        var delivery: WebhookDelivery?
        while ContinuousClock.now < deadline {
            delivery = try await platform.send(
                "GET", "/open/partner/transcriptions/\(taskID)/webhook/deliveries", token: token
            ).decode(WebhookDeliveryList.self).deliveries.first
            if delivery?.state == state { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return delivery
    }

    @Test func aSignedWebhookIsRetriedAfterA500AndCanBeRedelivered() async throws {
        let receiver = Receiver(statuses: [500, 200])
        try await receiver.run { url in
            try await TestPlatform.with(Self.fast) { platform in
                let (_, token, _) = try await platform.newUser()
                let file = try await platform.upload(testContent(1000), token: token)
                let task = try await platform.createTask(
                    ["file_url": file.fileID, "model": "asr-fast", "callback_url": url, "user_id": "u7"], token: token
                ).decode(TranscriptionTask.self)
                // Revoking makes the (queued) task final: that is the event.
                _ = try await platform.send("POST", "/open/partner/transcriptions/\(task.taskID)/revoke", token: token)
                try await receiver.wait(for: 2)
                let (first, second) = (receiver.all[0], receiver.all[1])
                #expect(second.at - first.at >= .milliseconds(250))  // backoff before the retry
                #expect(first.body == second.body)
                #expect(
                    first.headers[WebhookSignature.deliveryHeader] == second.headers[WebhookSignature.deliveryHeader])
                #expect(first.headers[WebhookSignature.eventHeader] == "transcription.revoked")
                #expect(first.headers["Content-Type"] == "application/json")
                let payload = try JSONDecoder().decode(TranscriptionTask.self, from: Data(second.body))
                #expect(payload.taskID == task.taskID && payload.status == .revoked && payload.userID == "u7")

                // The signature verifies as docs/tasks.md tells receivers to check it.
                let secret = try await platform.send("GET", APIPath.webhookSecret, token: token)
                    .decode(WebhookSecret.self).secret
                #expect(secret.hasPrefix("whsec_"))
                let header = try #require(second.headers[WebhookSignature.header])
                let fields = Dictionary(
                    uniqueKeysWithValues: header.split(separator: ",").map {
                        let pair = $0.split(separator: "=", maxSplits: 1)
                        return (String(pair[0]), String(pair[1]))
                    })
                let timestamp = try #require(fields["t"].flatMap { Int64($0) })
                #expect(abs(Int64(Date().timeIntervalSince1970) - timestamp) < 60)
                let expected = HMAC.authenticationCode(
                    .sha256, key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + second.body)
                #expect(fields["v1"] == expected.hex)
                let forged = HMAC.authenticationCode(
                    .sha256, key: Array("whsec_wrong".utf8), message: Array("\(timestamp).".utf8) + second.body)
                #expect(fields["v1"] != forged.hex)

                // Both attempts are logged.
                let log = try await platform.send(
                    "GET", "/open/partner/transcriptions/\(task.taskID)/webhook/deliveries", token: token
                ).decode(WebhookDeliveryList.self)
                #expect(log.deliveries.count == 1)
                #expect(log.deliveries[0].state == "delivered")
                #expect(log.deliveries[0].attemptLog.map(\.status) == [500, 200])
                #expect(log.deliveries[0].attemptLog.first?.error == "HTTP 500")

                // Redelivery sends the same event again as a new delivery.
                let again = try await platform.send(
                    "POST", "/open/partner/transcriptions/\(task.taskID)/webhook/redeliver", token: token)
                #expect(again.status == 202, "\(again.text)")
                try await receiver.wait(for: 3)
                #expect(receiver.all[2].body == first.body)
                #expect(
                    receiver.all[2].headers[WebhookSignature.deliveryHeader]
                        != first.headers[WebhookSignature.deliveryHeader])

                // Another tenant sees none of it.
                let (_, other, _) = try await platform.newUser(partner: "Other")
                let foreign = try await platform.send(
                    "GET", "/open/partner/transcriptions/\(task.taskID)/webhook/deliveries", token: other)
                #expect(foreign.status == 404)
                let metrics = try await platform.send("GET", "/metrics")
                #expect(metrics.text.contains("earshot_webhook_attempts_total{outcome=\"failed\"} 1"))
            }
        }
    }

    @Test func aReceiverThatKeepsFailingIsGivenUpOnAfterTheRetryPeriod() async throws {
        let receiver = Receiver(statuses: [503])
        try await receiver.run { url in
            try await TestPlatform.with({
                Self.fast(&$0)
                $0.webhookRetryPeriod = .seconds(1)
            }) { platform in
                let (_, token, _) = try await platform.newUser()
                let file = try await platform.upload(testContent(1000), token: token)
                let task = try await platform.createTask(
                    ["file_url": file.fileID, "model": "asr-fast", "callback_url": url], token: token
                ).decode(TranscriptionTask.self)
                _ = try await platform.send("POST", "/open/partner/transcriptions/\(task.taskID)/revoke", token: token)
                let delivery = try await Self.firstDelivery(of: task.taskID, reaching: "failed", platform, token)
                #expect(delivery?.state == "failed")
                #expect((delivery?.attempts ?? 0) >= 2)
                #expect(delivery?.attemptLog.allSatisfy { $0.status == 503 } == true)
                // A task without a callback cannot be redelivered; a pending task neither.
                let plain = try await platform.createTask(["file_url": file.fileID, "model": "asr-fast"], token: token)
                    .decode(TranscriptionTask.self)
                let pending = try await platform.send(
                    "POST", "/open/partner/transcriptions/\(plain.taskID)/webhook/redeliver", token: token)
                #expect(pending.status == 409)
            }
        }
    }

    @Test func aTimeoutCountsAsAFailedAttemptAndIsRetried() async throws {
        let receiver = Receiver(statuses: [200], firstDelay: .seconds(6))
        try await receiver.run { url in
            try await TestPlatform.with({
                Self.fast(&$0)
                $0.webhookTimeout = .seconds(1)
            }) { platform in
                let (_, token, _) = try await platform.newUser()
                let file = try await platform.upload(testContent(1000), token: token)
                let task = try await platform.createTask(
                    ["file_url": file.fileID, "model": "asr-fast", "callback_url": url], token: token
                ).decode(TranscriptionTask.self)
                _ = try await platform.send("POST", "/open/partner/transcriptions/\(task.taskID)/revoke", token: token)
                let delivery = try await Self.firstDelivery(of: task.taskID, reaching: "delivered", platform, token)
                #expect(delivery?.state == "delivered")
                // The first attempt times out; on a loaded machine a retry may time out as well, so every attempt
                // before the last must be a logged timeout and the last the receiver's 200.
                let log = delivery?.attemptLog ?? []
                #expect(log.count >= 2)
                #expect(log.dropLast().allSatisfy { $0.status == nil && $0.error != nil })
                #expect((log.first?.durationMs ?? 0) < 4_000)
                #expect(log.last?.status == 200)
            }
        }
    }
}
