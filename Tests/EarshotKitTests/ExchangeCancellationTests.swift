import EarshotCore
import EarshotHTTP
import Foundation
import Testing

@testable import EarshotKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The SDK's transport (`SessionExchange`) and the server's (`DeadlineExchange`) cancelled at every moment of a
/// request's life: before it starts, while the server answers, while the answer arrives. Every call must end, with
/// its answer or `CancellationError` (never URLSession's own `cancelled` error), within 30 s.
///
/// FoundationNetworking's async `data(for:)` deadlocked once in `make test` when cancelled as it completed (its
/// cancellation waits on the session's queue while that queue resumes the same task). That race is rare: 600 rounds
/// of this loop with `data(for:)` did not hit it, so this test guards the contract, not that one interleaving.
@Suite struct ExchangeCancellationTests {
    enum Transport: String, CaseIterable, Sendable {
        case sdk, server
    }

    enum Outcome: Equatable, Sendable {
        case answered(String)
        case cancelled
        case failed(String)
        case hung
    }

    @Test(arguments: Transport.allCases)
    func cancellingAtAnyMomentEndsEveryCall(transport: Transport) async throws {
        let router = Router()
        router.get("/answer") { _, _ in .text("ok") }
        router.get("/slow") { _, _ in
            try await Task.sleep(for: .milliseconds(5))
            return .text("slow")
        }
        let server = HTTPServer(router: router, configuration: .init(host: "127.0.0.1", port: 0, threadPoolSize: 2))
        let running = Task { try await server.run() }
        defer { running.cancel() }
        let port = try await server.waitUntilListening()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        let session = URLSession(configuration: configuration)

        // The session's first exchange (connection, curl's set-up) is not what this test is about, and on a loaded
        // machine (make test's parallel phase starting) it once took over 10 s: it is made first, with time to spare.
        let first = Task {
            let request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/answer")!)
            let (data, _) = try await SessionExchange.send(request, body: nil, file: nil, session: session)
            return String(decoding: data, as: UTF8.self)
        }
        #expect(await Self.outcome(of: first, within: 120) == .answered("ok"))

        var counts: [String: Int] = [:]
        for round in 0..<120 {
            let path = round.isMultiple(of: 2) ? "/answer" : "/slow"
            let request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            let call = Task { () throws -> String in
                let data: Data
                switch transport {
                case .sdk:
                    (data, _) = try await SessionExchange.send(request, body: nil, file: nil, session: session)
                case .server:
                    (data, _) = try await DeadlineExchange.send(
                        request, session: session, timeout: .seconds(30), failure: { $0 })
                }
                return String(decoding: data, as: UTF8.self)
            }
            // From "before it starts" to "after it answered": 0–8 ms; every fifth call is left to answer.
            if !round.isMultiple(of: 5) {
                try await Task.sleep(nanoseconds: round % 5 == 1 ? 0 : UInt64.random(in: 0...8_000_000))
                call.cancel()
            }
            // A deadlock never ends; 30 s leaves room for a loaded machine.
            let outcome = await Self.outcome(of: call, within: 30)
            #expect(outcome != .hung, "round \(round): a call did not return within 30 s")
            if case .failed(let error) = outcome { Issue.record("round \(round): \(error)") }
            counts["\(outcome)", default: 0] += 1
        }
        // Both endings happened (calls cancelled at once end cancelled; calls left alone answer).
        #expect(counts["cancelled", default: 0] > 0, "\(counts)")
        #expect(counts.filter { $0.key.hasPrefix("answered") }.values.reduce(0, +) >= 24, "\(counts)")
        // The server is stopped with cancelled transfers possibly still arriving on kept-alive connections (they end
        // within the grace), which it must survive (ShutdownRaceTests), and drained before the test returns.
        running.cancel()
        _ = await running.result
    }

    /// A call cancelled while the server is still working ends at once; its transfer is stopped after the grace
    /// period (the URLSession task leaves the session), not left to run until the server answers 30 s later.
    @Test(arguments: Transport.allCases)
    func aCancelledCallsTransferIsStoppedAfterTheGrace(transport: Transport) async throws {
        // The handler answers after 30 s, or as soon as the test is over: the server must not be stopped with its
        // connection still suspended (libmicrohttpd aborts the process).
        let over = Locked(false)
        let router = Router()
        router.get("/hang") { _, _ in
            let start = ContinuousClock.now
            while !over.withLock({ $0 }), ContinuousClock.now - start < .seconds(30) {
                try? await Task.sleep(for: .milliseconds(20))
            }
            return .text("late")
        }
        let server = HTTPServer(router: router, configuration: .init(host: "127.0.0.1", port: 0, threadPoolSize: 2))
        let running = Task { try await server.run() }
        defer {
            over.withLock { $0 = true }
            running.cancel()
        }
        let port = try await server.waitUntilListening()
        let session = URLSession(configuration: .ephemeral)
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/hang")!)
        let call = Task { () throws -> String in
            let data: Data
            switch transport {
            case .sdk: (data, _) = try await SessionExchange.send(request, body: nil, file: nil, session: session)
            case .server:
                (data, _) = try await DeadlineExchange.send(
                    request, session: session, timeout: .seconds(60), failure: { $0 })
            }
            return String(decoding: data, as: UTF8.self)
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await Self.tasks(of: session) == 1, "the request is in flight")
        let cancelled = ContinuousClock.now
        call.cancel()
        #expect(await Self.outcome(of: call, within: 30) == .cancelled)
        // Not a timing test (make test's parallel phase loads the machine): the call ends long before the answer.
        #expect(ContinuousClock.now - cancelled < .seconds(10), "the call ends at once, not with the transfer")
        var remaining = await Self.tasks(of: session)
        while remaining > 0, ContinuousClock.now - cancelled < .seconds(20) {
            try await Task.sleep(for: .milliseconds(100))
            remaining = await Self.tasks(of: session)
        }
        #expect(remaining == 0, "the transfer was not stopped")
        #expect(ContinuousClock.now - cancelled >= .seconds(1.5), "stopped after the grace, not at once")
        over.withLock { $0 = true }
        running.cancel()
        _ = await running.result  // drained: the handler has answered
    }

    /// How many tasks `session` still runs.
    static func tasks(of session: URLSession) async -> Int {
        await withCheckedContinuation { continuation in
            session.getAllTasks { continuation.resume(returning: $0.filter { $0.state == .running }.count) }
        }
    }

    /// The call's ending, or `.hung` when it has none within `seconds` (the stuck task is left behind).
    static func outcome(of call: Task<String, any Error>, within seconds: Double) async -> Outcome {
        let once = Locked(false)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let finish: @Sendable (Outcome) -> Void = { outcome in
                let first = once.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: outcome) }
            }
            Task {
                switch await call.result {
                case .success(let text): finish(.answered(text))
                case .failure(is CancellationError): finish(.cancelled)
                case .failure(let error): finish(.failed("\(error)"))
                }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { finish(.hung) }
        }
    }
}
