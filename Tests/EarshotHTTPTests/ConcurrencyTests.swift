import EarshotHTTP
import EarshotTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Waits until `condition` holds, polling every 5 ms for at most `timeout`.
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

@Suite(.timeLimit(.minutes(1)))
struct ConcurrencyTests {
    @Test func twoHundredConcurrentAsyncRequestsAllSucceedWithDistinctIDs() async throws {
        let router = Router()
        let peak = Mutex((current: 0, max: 0))
        router.get("/work/{n}") { _, context in
            peak.withLock {
                $0.current += 1
                $0.max = max($0.max, $0.current)
            }
            try await Task.sleep(for: .milliseconds(100))  // an async handler: the connection is suspended meanwhile
            peak.withLock { $0.current -= 1 }
            return try .json(["n": try context.parameters.require("n")])
        }
        let results = try await withServer(router) { port in
            try await withThrowingTaskGroup(of: (Int, FetchResult).self) { group in
                for n in 0..<200 {
                    group.addTask { (n, try await fetch(port, "/work/\(n)")) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0.1.status == 200 && $0.1.text == "{\"n\":\"\($0.0)\"}" })
        let ids = Set(results.compactMap { $0.1.header("X-Request-Id") })
        #expect(ids.count == 200)
        #expect(peak.withLock { $0.max } > 50, "handlers overlapped: at most \(peak.withLock { $0.max }) at once")
    }

    @Test func gracefulShutdownDrainsInFlightAndRefusesNewConnections() async throws {
        let router = Router()
        let entered = Atomic<Bool>(false)
        router.get("/slow") { _, _ in
            entered.store(true, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(800))  // would throw if shutdown cancelled the handler
            return .text("finished")
        }
        _ = TestLog.path
        let server = HTTPServer(router: router, configuration: .test())
        let running = Task { try await server.run() }
        let port = try await server.waitUntilListening()
        async let slow = raw(port, "GET", "/slow")
        #expect(try await eventually { entered.load(ordering: .relaxed) })
        running.cancel()
        // Shortly after cancellation the listening socket is closed.
        let refused = try await eventually {
            do {
                _ = try RawConnection(port: port, timeout: 2)
                return false
            } catch let error as RawError {
                return error.code == ECONNREFUSED
            } catch {
                return false
            }
        }
        #expect(refused)
        let response = try await slow
        #expect(response.status == 200)
        #expect(response.text == "finished")
        #expect(response.headers["Connection"]?.lowercased() == "close")
        try await running.value
        #expect(server.port == nil)
    }

    @Test func handlersStillRunningAfterTheGracePeriodAreCancelledWith503() async throws {
        let router = Router()
        let entered = Atomic<Bool>(false)
        router.get("/stuck") { _, _ in
            entered.store(true, ordering: .relaxed)
            try await Task.sleep(for: .seconds(30))
            return .text("too late")
        }
        _ = TestLog.path
        let server = HTTPServer(router: router, configuration: .test { $0.shutdownGracePeriod = .milliseconds(300) })
        let running = Task { try await server.run() }
        let port = try await server.waitUntilListening()
        async let stuck = raw(port, "GET", "/stuck")
        #expect(try await eventually { entered.load(ordering: .relaxed) })
        let started = ContinuousClock.now
        server.shutdown()
        try await running.value
        // Far below the handler's 30 s: the grace period ended it (with slack for a loaded CI machine).
        #expect(ContinuousClock.now - started < .seconds(10))
        let response = try await stuck
        #expect(response.status == 503)
        #expect(response.text.contains("UNAVAILABLE"))
    }
}

/// libmicrohttpd aborts the process when it is stopped with a connection suspended. A kept-alive connection can bring
/// a new request at any moment until the daemon stops, even after the server found itself idle: stopping while
/// clients keep sending must never leave one suspended (make test aborted this way once, 2026-12-06).
@Suite(.timeLimit(.minutes(2)))
struct ShutdownRaceTests {
    final class StopFlag: Sendable {
        let raised = Atomic<Bool>(false)
    }

    @Test func stoppingWhileKeptAliveConnectionsKeepSendingNeverAborts() async throws {
        _ = TestLog.path
        let router = Router()
        router.get("/work") { _, _ in
            try? await Task.sleep(for: .microseconds(Int.random(in: 0...2000)))
            return .text("done")
        }
        var statuses: [Int: Int] = [:]
        for _ in 0..<40 {
            let server = HTTPServer(
                router: router, configuration: .test { $0.shutdownGracePeriod = .seconds(2) })
            let running = Task { try await server.run() }
            let port = try await server.waitUntilListening()
            let stop = StopFlag()
            let clients = (0..<12).map { _ in
                Task {
                    try await offThread { () -> [Int] in
                        var seen: [Int] = []
                        guard let connection = try? RawConnection(port: port, timeout: 10) else { return seen }
                        while !stop.raised.load(ordering: .relaxed) {
                            // Idle between requests for a while: the connection is open but no request is in flight.
                            usleep(UInt32.random(in: 0...6000))
                            guard (try? connection.send("GET /work HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")) != nil,
                                let response = try? connection.readResponse()
                            else { break }
                            seen.append(response.status)
                            if response.headers["Connection"]?.lowercased() == "close" { break }
                        }
                        return seen
                    }
                }
            }
            try await Task.sleep(for: .microseconds(Int.random(in: 2000...30000)))
            server.shutdown()
            try await running.value
            stop.raised.store(true, ordering: .relaxed)
            for client in clients {
                for status in try await client.value { statuses[status, default: 0] += 1 }
            }
        }
        #expect(Set(statuses.keys).isSubset(of: [200, 503]), "\(statuses)")
        #expect(statuses[200, default: 0] > 0, "\(statuses)")
    }
}
