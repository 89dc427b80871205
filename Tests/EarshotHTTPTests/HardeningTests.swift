import EarshotHTTP
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What an adversarial run found in the HTTP layer (issue 13): requests with hundreds of query parameters got no
/// answer at all, a combining mark after `/` merged two path segments, error bodies changed key order between
/// requests, and a signed route spooled the whole body before it could refuse the request.
@Suite(.timeLimit(.minutes(2)))
struct HardeningTests {
    private static func router(spool: String) -> Router {
        let router = Router()
        router.get("/items/{id}") { _, context in .text(try context.parameters.require("id")) }
        router.get("/echo") { request, _ in .text("\(Array(request.query).count)") }
        router.on(
            .put, "/parts/{id}", body: .file(limit: 8 << 20, directory: spool),
            check: { request, _ in
                guard request.query["signature"] == "good" else {
                    throw HTTPError.forbidden("bad signature")
                }
            }
        ) { request, _ in
            guard case .file(let file) = request.body else { return .text("no file", status: .badRequest) }
            return .text("\(file.byteCount)")
        }
        return router
    }

    private static func spoolDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "earshot-hardening-\(UUID())"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Finding 10: past about 455 parameters libmicrohttpd ran out of connection memory and closed the
    /// connection without a response. Every request gets a status now: 414 above the limit.
    @Test(arguments: [10, 300, 455, 1000, 4000])
    func everyQueryGetsAStatus(parameters: Int) async throws {
        let spool = try Self.spoolDirectory()
        defer { try? FileManager.default.removeItem(atPath: spool) }
        try await withServer(Self.router(spool: spool)) { port in
            let query = (0..<parameters).map { "p\($0)=1" }.joined(separator: "&")
            let response = try await raw(port, "GET", "/echo?" + query)
            if parameters <= HTTPServer.Configuration.test().queryParameterLimit {
                #expect(response.status == 200)
                #expect(response.text == "\(parameters)")
            } else {
                #expect(response.status == 414, "\(parameters) parameters: \(response.status)")
                #expect(response.text.contains("URI_TOO_LONG"))
            }
            #expect(try await raw(port, "GET", "/echo?a=1").status == 200)
        }
    }

    /// Finding 11: `%CC%81` (U+0301, a combining mark) after a `/` made one grapheme cluster with it, and the
    /// router split on characters, so `/items/x/%CC%81y` matched `/items/{id}` with `id` = `x/́y`.
    @Test func aCombiningMarkDoesNotMergePathSegments() async throws {
        let spool = try Self.spoolDirectory()
        defer { try? FileManager.default.removeItem(atPath: spool) }
        try await withServer(Self.router(spool: spool)) { port in
            let merged = try await raw(port, "GET", "/items/x/%CC%81y")
            #expect(merged.status == 404, "\(merged.text)")
            let single = try await raw(port, "GET", "/items/%CC%81y")
            #expect(single.status == 200)
            #expect(single.text == "\u{301}y")
        }
    }

    /// Finding 13: JSON objects were encoded in hash order, so two error bodies of the same kind differed in key
    /// order. They are byte-identical now apart from the request id.
    @Test func errorBodiesHaveOneKeyOrder() async throws {
        let spool = try Self.spoolDirectory()
        defer { try? FileManager.default.removeItem(atPath: spool) }
        try await withServer(Self.router(spool: spool)) { port in
            var bodies = Set<String>()
            for _ in 0..<40 {
                let response = try await raw(port, "GET", "/missing", headers: [("X-Request-Id", "fixed-id")])
                #expect(response.status == 404)
                bodies.insert(response.text)
            }
            #expect(bodies.count == 1, "\(bodies)")
            #expect(bodies.first?.hasPrefix(#"{"error":{"code":"NOT_FOUND","message":"#) == true, "\(bodies)")
        }
    }

    /// Finding 8: a route's head check runs on the headers before any body byte is read; a refused request is
    /// answered at once and nothing is spooled.
    @Test func aHeadCheckRefusesBeforeTheBodyIsRead() async throws {
        let spool = try Self.spoolDirectory()
        defer { try? FileManager.default.removeItem(atPath: spool) }
        try await withServer(Self.router(spool: spool)) { port in
            // Headers announcing 5 MB, and no body: the refusal must not wait for it.
            let refused = try await offThread { () throws -> RawResponse in
                let connection = try RawConnection(port: port, timeout: 5)
                try connection.send(
                    "PUT /parts/p1?signature=forged HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000000\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(refused.status == 403)
            #expect(refused.text.contains("bad signature"))
            // A client that sends the body anyway is cut off; nothing reaches the spool directory.
            let blasted = try await offThread { () throws -> Int in
                let connection = try RawConnection(port: port, timeout: 5)
                try? connection.send(
                    "PUT /parts/p1?signature=forged HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4000000\r\n\r\n")
                try? connection.send([UInt8](repeating: 7, count: 4_000_000))
                return (try? connection.readResponse().status) ?? 0
            }
            #expect(blasted == 403 || blasted == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: spool).isEmpty)
            // Expect: 100-continue gets the refusal instead of the go-ahead.
            let continued = try await offThread { () throws -> RawResponse in
                let connection = try RawConnection(port: port, timeout: 5)
                try connection.send(
                    "PUT /parts/p1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(continued.status == 403)
            // A request that passes the check is handled as before.
            let accepted = try await raw(
                port, "PUT", "/parts/p1?signature=good", body: [UInt8](repeating: 1, count: 70_000))
            #expect(accepted.status == 200)
            #expect(accepted.text == "70000")
            #expect(try FileManager.default.contentsOfDirectory(atPath: spool).isEmpty)
        }
    }
}
