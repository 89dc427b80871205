import EarshotCrypto
import EarshotHTTP
import EarshotTestSupport
import Foundation
import Synchronization
import Testing

/// How a test route is registered: as an ordinary `async` handler, through `router.inline`, or as an inline
/// attempt that answers (`attempt`) or declines so the async handler answers (`declined`).
enum HandlerKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case async, inline, attempt, declined

    var testDescription: String { rawValue }

    /// Registers the same synchronous `handler` either way, so both paths can be checked for identical behaviour.
    func register(
        on builder: some RouteBuilder, _ method: HTTPMethod, _ path: String, body: BodyMode = .buffered(),
        _ handler: @escaping InlineHandler
    ) {
        switch self {
        case .async: builder.on(method, path, body: body) { request, context in try handler(request, context) }
        case .inline: builder.inline.on(method, path, body: body, use: handler)
        case .attempt:
            builder.inline.on(
                method, path, body: body, attempt: { request, context in try handler(request, context) },
                otherwise: { _, _ in .text("the async fallback ran", status: .internalServerError) })
        case .declined:
            builder.inline.on(
                method, path, body: body, attempt: { _, _ in nil },
                otherwise: { request, context in try handler(request, context) })
        }
    }
}

private struct Conflict: HTTPErrorConvertible {
    var httpError: HTTPError { HTTPError(.conflict, code: "BIND_OCCUPIED", message: "device is bound to another user") }
}

private struct Mapped: Error {}
private struct Unknown: Error {}

private func makeRouter(_ kind: HandlerKind) -> Router {
    let router = Router()
    kind.register(on: router, .get, "/echo/{id}") { request, context in
        .text("\(try context.parameters.require("id")) \(request.query["q"] ?? "-") \(context.route)")
    }
    kind.register(on: router, .post, "/echo", body: .buffered(limit: 16)) { request, _ in
        .bytes(request.bytes, contentType: "application/octet-stream")
    }
    kind.register(on: router.group("/api"), .get, "/ping") { _, context in .text(context.requestID) }
    kind.register(on: router, .get, "/fail/http") { _, _ in throw HTTPError.forbidden("not yours") }
    kind.register(on: router, .get, "/fail/domain") { _, _ in throw Conflict() }
    kind.register(on: router, .get, "/fail/mapped") { _, _ in throw Mapped() }
    kind.register(on: router, .get, "/fail/unknown") { _, _ in throw Unknown() }
    return router
}

private let configuration = HTTPServer.Configuration.test {
    $0.errorMapper = { $0 is Mapped ? HTTPError(.notFound, code: "RECORD_NOT_FOUND", message: "no such record") : nil }
}

@Suite(.timeLimit(.minutes(1)))
struct InlineRouteTests {
    @Test(arguments: HandlerKind.allCases)
    func routingParametersQueryAndGroupsBehaveTheSame(_ kind: HandlerKind) async throws {
        try await withServer(makeRouter(kind), configuration: configuration) { port async throws in
            let echo = try await fetch(port, "/echo/rec_1?q=a+b")
            #expect(echo.status == 200)
            #expect(echo.text == "rec_1 a b /echo/{id}")
            let ping = try await fetch(port, "/api/ping", headers: ["X-Request-Id": "client-7"])
            #expect(ping.text == "client-7" && ping.header("X-Request-Id") == "client-7")
            let head = try await raw(port, "HEAD", "/api/ping")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(try await fetch(port, "/api/ping", method: "DELETE").status == 405)
        }
    }

    @Test(arguments: HandlerKind.allCases)
    func bufferedBodiesAndTheirLimitsBehaveTheSame(_ kind: HandlerKind) async throws {
        try await withServer(makeRouter(kind), configuration: configuration) { port async throws in
            let echoed = try await fetch(port, "/echo", method: "POST", body: Data("hello".utf8))
            #expect(echoed.status == 200 && echoed.text == "hello")
            let big = try await fetch(port, "/echo", method: "POST", body: Data(count: 17))
            #expect(big.status == 413 && big.errorCode == "PAYLOAD_TOO_LARGE")
        }
    }

    @Test(arguments: HandlerKind.allCases)
    func thrownErrorsMapToTheSameResponses(_ kind: HandlerKind) async throws {
        try await withServer(makeRouter(kind), configuration: configuration) { port async throws in
            let forbidden = try await fetch(port, "/fail/http")
            #expect(forbidden.status == 403 && forbidden.errorCode == "FORBIDDEN")
            let domain = try await fetch(port, "/fail/domain")
            #expect(domain.status == 409 && domain.errorCode == "BIND_OCCUPIED")
            let mapped = try await fetch(port, "/fail/mapped")
            #expect(mapped.status == 404 && mapped.errorCode == "RECORD_NOT_FOUND")
            let id = "inline-\(kind)-\(UUID().uuidString.prefix(8))"
            let unknown = try await fetch(port, "/fail/unknown", headers: ["X-Request-Id": id])
            #expect(unknown.status == 500 && unknown.errorCode == "INTERNAL")
            #expect(unknown.header("X-Request-Id") == id && unknown.text.contains(id))
            #expect(TestLog.lines().filter { $0.contains("msg=\"handler failed\"") && $0.contains(id) }.count == 1)
        }
    }

    @Test(arguments: HandlerKind.allCases)
    func accessLogAndMetricsAreWrittenTheSame(_ kind: HandlerKind) async throws {
        let metrics = HTTPMetrics()
        let id = "inline-log-\(kind)-\(UUID().uuidString.prefix(8))"
        try await withServer(makeRouter(kind), configuration: configuration, metrics: metrics) { port async throws in
            _ = try await fetch(port, "/echo/rec_2", headers: ["X-Request-Id": id])
            _ = try await fetch(port, "/fail/http", headers: ["X-Request-Id": id + "-403"])
            #expect(try await eventually { metrics.count(method: "GET", route: "/echo/{id}", status: 200) == 1 })
            #expect(try await eventually { metrics.count(method: "GET", route: "/fail/http", status: 403) == 1 })
        }
        let lines = TestLog.lines()
        let ok = try #require(lines.first { $0.contains("request_id=\(id) ") })
        for part in [
            "level=info", "label=http", "msg=request", "method=GET", "path=/echo/rec_2", "route=/echo/{id}",
            "status=200", "bytes=18", "duration_ms=", "remote=127.0.0.1", "outcome=ok",
        ] {
            #expect(ok.contains(part), "missing \(part) in \(ok)")
        }
        let failed = try #require(lines.first { $0.contains("request_id=\(id)-403 ") })
        #expect(failed.contains("status=403") && failed.contains("route=/fail/http"))
    }

    @Test(arguments: HandlerKind.allCases)
    func fileBodiesReachInlineHandlersWithDigestsAndAreCleanedUp(_ kind: HandlerKind) async throws {
        let directory = NSTemporaryDirectory() + "earshot-inline-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let router = Router()
        kind.register(on: router, .put, "/upload", body: .file(limit: 1 << 20, directory: directory)) { request, _ in
            guard case .file(let upload) = request.body else { throw HTTPError.invalidArgument("no file") }
            #expect(FileManager.default.fileExists(atPath: upload.path))
            return .text("\(upload.byteCount) \(upload.sha256)")
        }
        let body = Array("the quick brown fox".utf8)
        var hasher = try StreamingHasher(.sha256)
        hasher.update(body)
        let digest = hasher.finalize().hex
        try await withServer(router) { port async throws in
            let response = try await raw(port, "PUT", "/upload", body: body)
            #expect(response.status == 200 && response.text == "\(body.count) \(digest)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    @Test func anAttemptAnswersOnTheWorkerThreadAndADeclinedOneInATask() async throws {
        let router = Router()
        let here: InlineHandler = { _, _ in .text(withUnsafeCurrentTask { $0 == nil } ? "worker" : "task") }
        HandlerKind.attempt.register(on: router, .get, "/attempt", here)
        HandlerKind.declined.register(on: router, .get, "/declined", here)
        let calls = Mutex(0)
        router.inline.on(
            .get, "/sometimes",
            attempt: { request, _ in
                calls.withLock { $0 += 1 }
                return request.query["fast"] == "1" ? .text("fast") : nil
            }, otherwise: { _, _ in .text("slow") })
        try await withServer(router) { port async throws in
            #expect(try await fetch(port, "/attempt").text == "worker")
            #expect(try await fetch(port, "/declined").text == "task")
            #expect(try await fetch(port, "/sometimes?fast=1").text == "fast")
            #expect(try await fetch(port, "/sometimes").text == "slow")
            #expect(calls.withLock { $0 } == 2)  // the attempt runs once per request, also when it declines
        }
    }

    @Test func inlineHandlersRunOnTheWorkerThreadNotInATask() async throws {
        let router = Router()
        router.inline.get("/where") { _, _ in .text(withUnsafeCurrentTask { $0 == nil } ? "worker" : "task") }
        router.get("/where-async") { _, _ in .text(withUnsafeCurrentTask { $0 == nil } ? "worker" : "task") }
        try await withServer(router) { port async throws in
            #expect(try await fetch(port, "/where").text == "worker")
            #expect(try await fetch(port, "/where-async").text == "task")
        }
    }
}
