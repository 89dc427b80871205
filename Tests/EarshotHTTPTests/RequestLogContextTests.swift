import EarshotCore
import EarshotHTTP
import EarshotTestSupport
import Foundation
import Testing

/// A service that knows nothing about HTTP: it logs through its own logger, with no request id in hand.
private enum TranscriptService {
    static let logger = Logger(label: "transcripts")

    static func save(_ marker: String) {
        logger.info("saved", metadata: ["marker": marker])
    }
}

/// The log lines carrying `marker=<marker>`.
private func lines(marked marker: String) -> [String] {
    TestLog.lines().filter { $0.contains(" marker=\(marker)") }
}

@Suite(.timeLimit(.minutes(1)))
struct RequestLogContextTests {
    @Test(arguments: HandlerKind.allCases)
    func aServiceLogLineCarriesTheRequestID(_ kind: HandlerKind) async throws {
        let router = Router()
        kind.register(on: router, .post, "/notes/{marker}") { _, context in
            TranscriptService.save(try context.parameters.require("marker"))
            return .empty()
        }
        let marker = "ctx-\(kind)-\(UUID().uuidString.prefix(8))"
        let (given, generated) = try await withServer(router) { port in
            let given = try await fetch(
                port, "/notes/\(marker)-given", method: "POST", headers: ["X-Request-Id": marker])
            let generated = try await fetch(port, "/notes/\(marker)-generated", method: "POST")
            return (given, generated)
        }
        #expect(given.status == 204 && generated.status == 204)
        let givenLine = try #require(lines(marked: "\(marker)-given").first)
        #expect(givenLine.contains("label=transcripts msg=saved request_id=\(marker) marker=\(marker)-given"))
        // A generated id: the same one the response's X-Request-Id and the access-log line carry.
        let id = try #require(generated.header("X-Request-Id"))
        let generatedLine = try #require(lines(marked: "\(marker)-generated").first)
        #expect(generatedLine.contains(" request_id=\(id) "))
        #expect(TestLog.lines().contains { $0.contains("msg=request") && $0.contains("request_id=\(id) ") })
    }

    @Test func childTasksOfAHandlerCarryTheRequestIDAndDetachedOnesOnlyThroughTheContextLogger() async throws {
        let router = Router()
        router.post("/notes/{marker}") { _, context in
            let marker = try context.parameters.require("marker")
            async let child: Void = TranscriptService.save(marker + "-async-let")
            await withTaskGroup(of: Void.self) { group in
                group.addTask { TranscriptService.save(marker + "-group") }
            }
            await child
            await Task { TranscriptService.save(marker + "-task") }.value
            await Task.detached {
                TranscriptService.save(marker + "-detached")
                context.logger.info("detached", metadata: ["marker": marker + "-detached-context-logger"])
            }.value
            return .empty()
        }
        let marker = "child-\(UUID().uuidString.prefix(8))"
        let response = try await withServer(router) { port in
            try await fetch(port, "/notes/\(marker)", method: "POST", headers: ["X-Request-Id": marker])
        }
        #expect(response.status == 204)
        for inherited in ["-async-let", "-group", "-task", "-detached-context-logger"] {
            let line = try #require(lines(marked: marker + inherited).first, "no line for \(inherited)")
            #expect(line.contains(" request_id=\(marker) "), "\(line)")
        }
        let detached = try #require(lines(marked: marker + "-detached").first)
        #expect(!detached.contains("request_id="), "Task.detached does not inherit task-locals: \(detached)")
    }

    @Test func aStreamedBodyHandlerLogsWithTheRequestIDWhileAndAfterReadingTheBody() async throws {
        let router = Router()
        router.put("/stream/{marker}", body: .stream(limit: 1 << 20)) { request, context in
            guard case .stream(let body) = request.body else { throw HTTPError.invalidArgument("expected a stream") }
            let marker = try context.parameters.require("marker")
            var total = 0
            for try await chunk in body {
                if total == 0 { TranscriptService.save(marker + "-first-chunk") }
                total += chunk.count
            }
            TranscriptService.save(marker + "-end")
            return .text(String(total))
        }
        let marker = "stream-\(UUID().uuidString.prefix(8))"
        let response = try await withServer(router) { port in
            try await fetch(
                port, "/stream/\(marker)", method: "PUT", headers: ["X-Request-Id": marker],
                body: Data(repeating: 7, count: 300_000))
        }
        #expect(response.status == 200 && response.text == "300000")
        for suffix in ["-first-chunk", "-end"] {
            let line = try #require(lines(marked: marker + suffix).first)
            #expect(line.contains(" request_id=\(marker) "))
        }
    }

    @Test(arguments: HandlerKind.allCases)
    func aFailedHandlerLogsTheRequestIDOnce(_ kind: HandlerKind) async throws {
        struct Broken: Error {}
        let router = Router()
        kind.register(on: router, .get, "/broken") { _, _ in throw Broken() }
        let marker = "broken-\(kind)-\(UUID().uuidString.prefix(8))"
        _ = try await withServer(router) { port in
            try await fetch(port, "/broken", headers: ["X-Request-Id": marker])
        }
        let line = try #require(TestLog.lines().first { $0.contains("msg=\"handler failed\"") && $0.contains(marker) })
        #expect(line.components(separatedBy: "request_id=").count == 2, "request_id once: \(line)")
    }
}
