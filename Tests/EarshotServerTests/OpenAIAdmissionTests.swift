import EarshotAPI
import EarshotCore
import Foundation
import Synchronization
import Testing

@testable import EarshotServer

/// Bounded concurrency and bounded waiting of the synchronous OpenAI-compatible endpoints (`openai-concurrency`).
@Suite struct OpenAIAdmissionTests {
    /// A latch a test opens to let held requests finish.
    final class Gate: Sendable {
        private let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation

        init() { (stream, continuation) = AsyncStream.makeStream() }
        func open() { continuation.finish() }
        func wait() async { for await _ in stream {} }
    }

    /// Waits (polling, bounded) until the limiter shows `running` and `waiting` requests.
    func waitFor(_ admission: DecodeAdmission, running: Int, waiting: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while await admission.load != (running, waiting) {
            guard ContinuousClock.now < deadline else {
                Issue.record("limiter stuck at \(await admission.load), expected (\(running), \(waiting))")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func aFullLimiterQueuesOneAndRefusesTheRestUntilASlotFrees() async throws {
        let admission = DecodeAdmission(configuration: .init(slots: 1, maxWaiting: 1, maxWait: .seconds(60)))
        let gate = Gate()
        let first = Task {
            try await admission.run {
                await gate.wait(); return 1
            }
        }
        try await waitFor(admission, running: 1, waiting: 0)
        let second = Task { try await admission.run { 2 } }
        try await waitFor(admission, running: 1, waiting: 1)

        let refused = await #expect(throws: PlatformError.self) { try await admission.run { 3 } }
        #expect(refused?.code == .rateLimited)
        #expect((1...60).contains(refused?.retryAfter ?? 0))
        #expect(refused?.message.contains("POST /open/partner/transcriptions") == true)

        gate.open()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        try await waitFor(admission, running: 0, waiting: 0)
        #expect(try await admission.run { 4 } == 4)
    }

    @Test func aWaiterIsRefusedAfterTheBoundedWait() async throws {
        let admission = DecodeAdmission(configuration: .init(slots: 1, maxWaiting: 4, maxWait: .milliseconds(100)))
        let gate = Gate()
        let holder = Task { try await admission.run { await gate.wait() } }
        try await waitFor(admission, running: 1, waiting: 0)
        let clock = ContinuousClock()
        let start = clock.now
        let refused = await #expect(throws: PlatformError.self) { try await admission.run { 0 } }
        #expect(refused?.code == .rateLimited)
        #expect(refused?.message.contains("within") == true)
        #expect(clock.now - start >= .milliseconds(100))
        #expect(await admission.load == (1, 0))
        gate.open()
        try await holder.value
    }

    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        let admission = DecodeAdmission(configuration: .init(slots: 1, maxWaiting: 1, maxWait: .seconds(60)))
        let gate = Gate()
        let holder = Task { try await admission.run { await gate.wait() } }
        try await waitFor(admission, running: 1, waiting: 0)
        let waiter = Task { try await admission.run { 0 } }
        try await waitFor(admission, running: 1, waiting: 1)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(await admission.load == (1, 0))
        gate.open()
        try await holder.value
        #expect(await admission.load == (0, 0))
    }

    @Test func theSettingIsParsedAndRangeChecked() throws {
        let spec = CommandSpec(name: "serve", abstract: "", options: ServerConfiguration.commandLineOptions)
        #expect(try ServerConfiguration.load(arguments: spec.parse([]), environment: [:]).openAIConcurrency == 2)
        let set = try ServerConfiguration.load(
            arguments: spec.parse([]), environment: ["EARSHOT_OPENAI_CONCURRENCY": "3"])
        #expect(set.openAIConcurrency == 3)
        let error = #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.load(arguments: spec.parse(["--openai-concurrency", "0"]), environment: [:])
        }
        #expect(error?.description.contains("'0' is not a request count (1-64)") == true)
    }

    /// The real endpoint with one slot and a short wait: of three simultaneous JFK requests at least one is
    /// answered and the ones that find the slot busy past the wait get 429 `RATE_LIMITED` with `Retry-After`.
    @Test(.enabled(if: TestAudio.modelsInstalled, "speech models not installed (run `make models`)"))
    func saturatedRequestsGet429WithRetryAfter() async throws {
        try await TestPlatform.with({
            $0.openAIConcurrency = 1
            $0.openAIMaxWait = .milliseconds(50)
        }) { platform in
            let (_, token, _) = try await platform.newUser()
            let boundary = "b-\(UUID().uuidString)"
            var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n".utf8)
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"jfk.wav\"".utf8)
            body += Data("\r\n\r\n".utf8) + (try TestAudio.jfk()) + Data("\r\n--\(boundary)--\r\n".utf8)
            let form = body
            let results = try await withThrowingTaskGroup(of: TestPlatform.HTTPResult.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try await platform.send(
                            "POST", APIPath.openAITranscriptions, token: token, body: form,
                            headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let ok = results.filter { $0.status == 200 }
            let limited = results.filter { $0.status == 429 }
            #expect(ok.count >= 1 && limited.count >= 1, "\(results.map(\.status))")
            #expect(ok.count + limited.count == 3)
            #expect(ok.allSatisfy { $0.text.lowercased().contains("ask not what your country") })
            for result in limited {
                #expect(result.errorCode == "RATE_LIMITED")
                let retryAfter = result.headers.first { $0.key.lowercased() == "retry-after" }?.value
                #expect(Int(retryAfter ?? "") ?? 0 >= 1)
            }
        }
    }
}
