import EarshotHTTP
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Streamed (chunked) response bodies: events reach the client as they are written, a client that leaves stops the
/// producer, and a stream in progress does not hold up shutdown beyond the grace period.
@Suite(.timeLimit(.minutes(1)))
struct StreamingResponseTests {
    /// Set when the producer's write failed because the client left.
    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    /// Writes `data: 1` … `data: 3`, 400 ms apart; records when the producer saw the client leave.
    static func router(left: Flag) -> Router {
        let router = Router()
        router.get("/events") { _, _ in
            .events { writer in
                for n in 1...3 {
                    if n > 1 { try await Task.sleep(for: .milliseconds(400)) }
                    try await writer.write("data: \(n)\n\n")
                }
            }
        }
        router.get("/forever") { _, _ in
            .events { writer in
                do {
                    while true {
                        try await writer.write("data: tick\n\n")
                        try await Task.sleep(for: .milliseconds(50))
                    }
                } catch {
                    left.set()
                    throw error
                }
            }
        }
        return router
    }

    @Test func eventsArriveAsTheyAreWrittenInAChunkedBody() async throws {
        let left = Flag()
        try await withServer(Self.router(left: left)) { port in
            let (head, arrivals) = try await offThread { () -> (String, [(String, Duration)]) in
                let connection = try RawConnection(port: port)
                let start = ContinuousClock.now
                try connection.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                var received = ""
                var arrivals: [(String, Duration)] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = recv(connection.fd, &buffer, buffer.count, 0)
                    guard n > 0 else { break }
                    received += String(decoding: buffer[0..<n], as: UTF8.self)
                    for event in ["data: 1", "data: 2", "data: 3"]
                    where received.contains(event) && !arrivals.contains(where: { $0.0 == event }) {
                        arrivals.append((event, ContinuousClock.now - start))
                    }
                }
                return (received, arrivals)
            }
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(head.lowercased().contains("transfer-encoding: chunked"))
            #expect(head.contains("Content-Type: text/event-stream"))
            #expect(head.hasSuffix("0\r\n\r\n"), "the body ends with the last chunk")
            #expect(arrivals.map(\.0) == ["data: 1", "data: 2", "data: 3"])
            // The first event is not held until the body is complete.
            #expect(arrivals[2].1 - arrivals[0].1 >= .milliseconds(600))
        }
    }

    @Test func aClientThatLeavesStopsTheProducer() async throws {
        let left = Flag()
        try await withServer(Self.router(left: left)) { port in
            try await offThread {
                let connection = try RawConnection(port: port)
                try connection.send("GET /forever HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = recv(connection.fd, &buffer, buffer.count, 0)
            }  // the connection closes here
            let deadline = ContinuousClock.now + .seconds(10)
            while !left.isSet, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(left.isSet, "the producer's write throws once the client is gone")
        }
    }
}
