import EarshotAPI
import EarshotHTTP
import Foundation
import Synchronization
import Testing

@testable import EarshotServer

/// What an adversarial run found in webhooks (issue 13, findings 1, 2 and 12): a partner could make the server
/// connect to its own network (SSRF), follow redirects, read connection errors as a port scanner, redeliver
/// without bound, hold every tenant's webhooks with one slow receiver, and register URLs that can never be
/// delivered.
@Suite(.serialized) struct WebhookSafetyTests {
    /// A loopback receiver whose answer `respond` chooses (it may sleep to play a slow receiver).
    final class Receiver: Sendable {
        let respond: @Sendable (Int) async -> Response
        let received = Mutex<[(path: String, headers: HTTPHeaders, at: ContinuousClock.Instant)]>([])

        init(_ respond: @escaping @Sendable (Int) async -> Response = { _ in .empty(status: .ok) }) {
            self.respond = respond
        }

        var count: Int { received.withLock { $0.count } }
        var all: [(path: String, headers: HTTPHeaders, at: ContinuousClock.Instant)] { received.withLock { $0 } }

        /// Serves on 127.0.0.1:0 and gives `body` the port.
        func run(_ body: @Sendable (Int) async throws -> Void) async throws {
            let router = Router()
            let handler: Handler = { request, _ in
                let count = self.received.withLock {
                    $0.append((request.path, request.headers, .now))
                    return $0.count
                }
                return await self.respond(count)
            }
            router.post("/*", use: handler)
            router.get("/*", use: handler)
            let server = HTTPServer(router: router, configuration: .init(host: "127.0.0.1", port: 0))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                let port = try await server.waitUntilListening()
                try await body(port)
                group.cancelAll()
            }
        }
    }

    static func fast(allow networks: [String]) -> @Sendable (inout ServerConfiguration) -> Void {
        { configuration in
            configuration.workers = 0
            configuration.webhookRetryDelay = .milliseconds(300)
            configuration.taskPollInterval = .milliseconds(50)
            configuration.webhookAllowNetworks = networks
        }
    }

    /// A revoked task (its event fires at once) with `callback` and the partner token.
    static func revokedTask(
        callback: String, _ platform: TestPlatform, token: String
    ) async throws -> TranscriptionTask {
        let file = try await platform.upload(testContent(1000), token: token)
        let created = try await platform.createTask(
            ["file_url": file.fileID, "model": "asr-fast", "callback_url": callback], token: token)
        try #require(created.status == 201, "\(created.text)")
        let task = try created.decode(TranscriptionTask.self)
        _ = try await platform.send("POST", "/open/partner/transcriptions/\(task.taskID)/revoke", token: token)
        return task
    }

    @Test(arguments: [
        ("http://example.com:99999/hook", "port 99999"),
        ("http://example.com:0/hook", "port 0"),
        ("ftp://example.com/hook", "http or https"),
        ("http:///hook", "host"),
        ("http://user:secret@example.com/hook", "user name or password"),
        ("http://169.254.169.254/latest/meta-data", "169.254.169.254"),
        ("http://[::1]:8080/hook", "::1"),
        ("http://10.1.2.3/hook", "10.1.2.3"),
        ("http://[::ffff:127.0.0.1]/hook", "127.0.0.1"),
        ("http://exa_mple..com/hook", "invalid host"),
        ("https://example.com/" + String(repeating: "a", count: 2100), "longer than 2048"),
    ])
    func callbackURLsThatCanNeverBeDeliveredAreRefusedAtCreation(url: String, named: String) async throws {
        try await TestPlatform.with(Self.fast(allow: [])) { platform in
            let (_, token, _) = try await platform.newUser()
            let file = try await platform.upload(testContent(1000), token: token)
            let response = try await platform.createTask(
                ["file_url": file.fileID, "model": "asr-fast", "callback_url": url], token: token)
            #expect(response.status == 400, "\(url): \(response.text)")
            #expect(response.errorMessage.contains(named), "\(response.errorMessage)")
            // An upper-case scheme and host are a valid URL.
            let upper = try await platform.createTask(
                ["file_url": file.fileID, "model": "asr-fast", "callback_url": "HTTPS://EXAMPLE.COM/Hook"],
                token: token)
            #expect(upper.status == 201, "\(upper.text)")
        }
    }

    @Test func aHostThatResolvesToLoopbackIsNeverContacted() async throws {
        let receiver = Receiver()
        try await receiver.run { port in
            // No allow-list: `localhost` is a name, accepted at creation, and refused when it resolves.
            try await TestPlatform.with(Self.fast(allow: [])) { platform in
                let (_, token, _) = try await platform.newUser()
                let task = try await Self.revokedTask(
                    callback: "http://localhost:\(port)/hook", platform, token: token)
                let delivery = try await WebhookTests.firstDelivery(
                    of: task.taskID, reaching: "failed", platform, token)
                #expect(delivery?.state == "failed")
                #expect(delivery?.attemptLog.first?.error?.contains("non-public address") == true)
                #expect(delivery?.attemptLog.first?.status == nil)
                try await Task.sleep(for: .milliseconds(300))
                #expect(receiver.count == 0, "the server connected to a loopback receiver")
            }
        }
    }

    @Test func anAllowedHostNameIsSentToTheCheckedAddressWithItsHost() async throws {
        let receiver = Receiver()
        try await receiver.run { port in
            try await TestPlatform.with(Self.fast(allow: ["127.0.0.0/8", "::1"])) { platform in
                let (_, token, _) = try await platform.newUser()
                _ = try await Self.revokedTask(callback: "http://localhost:\(port)/hook", platform, token: token)
                let deadline = ContinuousClock.now + .seconds(10)
                while receiver.count == 0, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(receiver.count >= 1)
                #expect(receiver.all.first?.headers["Host"] == "localhost:\(port)")
            }
        }
    }

    @Test func redirectsAreNotFollowedAndConnectionErrorsAreGeneric() async throws {
        let target = Receiver()
        try await target.run { targetPort in
            let redirecting = Receiver { _ in
                .empty(status: .found, headers: ["Location": "http://127.0.0.1:\(targetPort)/internal"])
            }
            try await redirecting.run { port in
                try await TestPlatform.with(Self.fast(allow: ["127.0.0.0/8", "::1"])) { platform in
                    let (_, token, _) = try await platform.newUser()
                    let task = try await Self.revokedTask(
                        callback: "http://127.0.0.1:\(port)/hook", platform, token: token)
                    let delivery = try await WebhookTests.firstDelivery(
                        of: task.taskID, reaching: "pending", platform, token)
                    _ = delivery
                    let deadline = ContinuousClock.now + .seconds(10)
                    while redirecting.count < 1, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    try await Task.sleep(for: .milliseconds(500))
                    #expect(redirecting.count >= 1)
                    #expect(target.count == 0, "the redirect was followed")
                    let log = try await platform.send(
                        "GET", "/open/partner/transcriptions/\(task.taskID)/webhook/deliveries", token: token
                    ).decode(WebhookDeliveryList.self)
                    #expect(log.deliveries.first?.attemptLog.first?.status == 302)

                    // A closed port and an unresolvable name read the same to the partner: nothing about the network.
                    let closed = try await Self.revokedTask(
                        callback: "http://127.0.0.1:1/hook", platform, token: token)
                    let refused = try await WebhookTests.firstDelivery(
                        of: closed.taskID, reaching: "pending", platform, token)
                    var error = refused?.attemptLog.first?.error
                    let until = ContinuousClock.now + .seconds(10)
                    while error == nil, ContinuousClock.now < until {
                        try await Task.sleep(for: .milliseconds(100))
                        error = try await WebhookTests.firstDelivery(
                            of: closed.taskID, reaching: "pending", platform, token)?.attemptLog.first?.error
                    }
                    #expect(error == WebhookJob.noResponse, "\(error ?? "nil")")
                }
            }
        }
    }

    @Test func redeliveriesAreCapped() async throws {
        let receiver = Receiver()
        try await receiver.run { port in
            try await TestPlatform.with(Self.fast(allow: ["127.0.0.0/8"])) { platform in
                let (_, token, _) = try await platform.newUser()
                let task = try await Self.revokedTask(
                    callback: "http://127.0.0.1:\(port)/hook", platform, token: token)
                var statuses: [Int] = []
                for _ in 0..<(Webhooks.maximumDeliveriesPerTask + 2) {
                    _ = try await WebhookTests.firstDelivery(of: task.taskID, reaching: "delivered", platform, token)
                    // Wait until every delivery so far is delivered, then ask again.
                    let deadline = ContinuousClock.now + .seconds(10)
                    while ContinuousClock.now < deadline {
                        let list = try await platform.send(
                            "GET", "/open/partner/transcriptions/\(task.taskID)/webhook/deliveries", token: token
                        ).decode(WebhookDeliveryList.self)
                        if list.deliveries.allSatisfy({ $0.state != "pending" }) { break }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    statuses.append(
                        try await platform.send(
                            "POST", "/open/partner/transcriptions/\(task.taskID)/webhook/redeliver", token: token
                        ).status)
                }
                #expect(statuses.prefix(Webhooks.maximumDeliveriesPerTask - 1).allSatisfy { $0 == 202 }, "\(statuses)")
                #expect(statuses.suffix(3).allSatisfy { $0 == 409 }, "\(statuses)")
            }
        }
    }

    @Test func aSlowReceiverDoesNotDelayAnotherTenantsWebhooks() async throws {
        let slow = Receiver { _ in
            try? await Task.sleep(for: .seconds(4))
            return .empty(status: .ok)
        }
        let quick = Receiver()
        try await slow.run { slowPort in
            try await quick.run { quickPort in
                try await TestPlatform.with(Self.fast(allow: ["127.0.0.0/8"])) { platform in
                    let (_, slowToken, _) = try await platform.newUser(partner: "Slow")
                    let (_, quickToken, _) = try await platform.newUser("u2", partner: "Quick")
                    for _ in 0..<10 {
                        _ = try await Self.revokedTask(
                            callback: "http://127.0.0.1:\(slowPort)/hook", platform, token: slowToken)
                    }
                    // Every worker could now be busy with the slow tenant; the other tenant's webhook must not wait.
                    try await Task.sleep(for: .milliseconds(500))
                    let sent = ContinuousClock.now
                    _ = try await Self.revokedTask(
                        callback: "http://127.0.0.1:\(quickPort)/hook", platform, token: quickToken)
                    let deadline = ContinuousClock.now + .seconds(15)
                    while quick.count == 0, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    let waited = (quick.all.first?.at ?? .now) - sent
                    #expect(quick.count == 1)
                    #expect(waited < .seconds(2), "the other tenant's webhook waited \(waited)")
                    // One host never has more than the per-host limit in flight.
                    #expect(slow.count <= platform.configuration.webhookHostConcurrency, "\(slow.count)")
                }
            }
        }
    }
}
