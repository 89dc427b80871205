import EarshotHTTP
import Foundation
import Testing

private func makeRouter() -> Router {
    let router = Router()
    router.get("/healthz") { _, _ in .text("ok") }
    router.post("/small", body: .buffered(limit: 1000)) { request, _ in .text("got \(request.bytes.count)") }
    router.post("/default") { request, _ in .text("got \(request.bytes.count)") }
    router.put("/stream", body: .stream(limit: 1000)) { request, _ in
        guard case .stream(let body) = request.body else { throw HTTPError.invalidArgument("no stream") }
        return .text("got \(try await body.collect().count)")
    }
    return router
}

private func chunked(_ sizes: [Int]) -> String {
    var out = ""
    for size in sizes {
        out += String(size, radix: 16) + "\r\n" + String(repeating: "x", count: size) + "\r\n"
    }
    return out + "0\r\n\r\n"
}

@Suite(.timeLimit(.minutes(1)))
struct LimitsTests {
    @Test func declaredContentLengthOverLimitIs413BeforeTheBody() async throws {
        try await withServer(makeRouter()) { port in
            let response = try await offThread {
                let connection = try RawConnection(port: port)
                // Announce 10 MB but send nothing: the answer must come from the headers alone.
                try connection.send("POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(response.status == 413)
            #expect(response.text.contains("PAYLOAD_TOO_LARGE"))
            #expect(response.headers["X-Request-Id"] != nil)
            #expect(try await raw(port, "POST", "/small", body: Array(repeating: 1, count: 1000)).text == "got 1000")
            // The default buffered limit (1 MiB) applies to routes without their own.
            let overDefault = try await offThread {
                let connection = try RawConnection(port: port)
                try connection.send("POST /default HTTP/1.1\r\nHost: x\r\nContent-Length: \((1 << 20) + 1)\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(overDefault.status == 413)
        }
    }

    @Test(arguments: ["/small", "/stream"])
    func chunkedBodyPassingTheLimitIs413(path: String) async throws {
        try await withServer(makeRouter()) { port in
            let method = path == "/small" ? "POST" : "PUT"
            let response = try await offThread {
                let connection = try RawConnection(port: port)
                try connection.send(
                    "\(method) \(path) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + chunked([600, 600, 600]))
                return try connection.readResponse()
            }
            #expect(response.status == 413)
            #expect(response.text.contains("PAYLOAD_TOO_LARGE"))
            let ok = try await offThread {
                let connection = try RawConnection(port: port)
                try connection.send(
                    "\(method) \(path) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                        + chunked([500, 500]))
                return try connection.readResponse()
            }
            #expect(ok.text == "got 1000")
        }
    }

    @Test func chunkedBodyFarOverTheLimitIsCutOff() async throws {
        let configuration = HTTPServer.Configuration.test { $0.bodyOverflowAllowance = 64 * 1024 }
        try await withServer(makeRouter(), configuration: configuration) { port in
            let outcome = try await offThread {
                let connection = try RawConnection(port: port)
                try connection.send("POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
                // Keep sending well past limit + allowance; the server must hang up instead of reading forever.
                for _ in 0..<400 {
                    do { try connection.send("1000\r\n" + String(repeating: "y", count: 4096) + "\r\n") } catch {
                        return true
                    }
                }
                return connection.readToEnd().closed
            }
            #expect(outcome)
            #expect(try await raw(port, "GET", "/healthz").status == 200)
        }
    }

    @Test func oversizedHeaderIsRejectedAndServerKeepsServing() async throws {
        let configuration = HTTPServer.Configuration.test { $0.maxHeaderBytes = 8 * 1024 }
        try await withServer(makeRouter(), configuration: configuration) { port in
            let response = try await raw(
                port, "GET", "/healthz", headers: [("X-Big", String(repeating: "z", count: 32 * 1024))])
            #expect(response.status == 431)  // answered by libmicrohttpd itself
            #expect(try await raw(port, "GET", "/healthz").text == "ok")
        }
    }

    @Test(arguments: ["", "GET /healthz HTTP/1.1\r\nHost: x\r\n"])
    func idleOrHalfRequestIsDroppedAfterTimeout(sent: String) async throws {
        let configuration = HTTPServer.Configuration.test { $0.connectionTimeout = .seconds(1) }
        try await withServer(makeRouter(), configuration: configuration) { port in
            let clock = ContinuousClock()
            let started = clock.now
            let closed = try await offThread {
                let connection = try RawConnection(port: port, timeout: 8)
                if !sent.isEmpty { try connection.send(sent) }
                return connection.readToEnd().closed
            }
            let elapsed = clock.now - started
            #expect(closed)
            #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(5), "dropped after \(elapsed)")
            #expect(try await raw(port, "GET", "/healthz").text == "ok")
        }
    }

    @Test func invalidConfigurationIsRejectedWithAClearError() async throws {
        let server = HTTPServer(router: Router(), configuration: .test { $0.host = "localhost" })
        await #expect(throws: HTTPServerError.self) { try await server.run() }
        do {
            try await server.run()
        } catch let error as HTTPServerError {
            #expect(error.code == .alreadyStarted)
        }
    }
}
