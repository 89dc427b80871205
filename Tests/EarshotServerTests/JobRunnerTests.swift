import EarshotAPI
import EarshotHTTP
import Foundation
import Synchronization
import Testing

@testable import EarshotServer

/// The one job runner seen through the API: a running job of any kind stops when its record is deleted, and
/// `/metrics` counts jobs per kind.
@Suite(.enabled(if: TestAudio.modelsInstalled, "speech models not installed (run `make models`)"))
struct JobRunnerTests {
    /// A chat-completions provider that holds every request open until the test ends, counting arrivals.
    final class SlowProvider: Sendable {
        let arrivals = Atomic<Int>(0)

        var router: Router {
            let router = Router()
            router.post("/v1/chat/completions") { [self] _, _ in
                arrivals.add(1, ordering: .relaxed)
                try await Task.sleep(for: .seconds(120))
                return .text("{}", contentType: "application/json")
            }
            return router
        }
    }

    @Test func deletingARecordStopsItsRunningSummaryAndMetricsArePerKind() async throws {
        let provider = SlowProvider()
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, threadPoolSize: 2)
        configuration.shutdownGracePeriod = .seconds(1)
        let server = HTTPServer(router: provider.router, configuration: configuration)
        let running = Task { try await server.run() }
        defer { running.cancel() }
        let port = try await server.waitUntilListening()
        try await TestPlatform.with({
            $0.llmBaseURL = "http://127.0.0.1:\(port)/v1"
            $0.llmModel = "held-open"
            $0.summaryMethod = "llm"
        }) { platform in
            let (_, _, user) = try await platform.newUser()
            let id = try await platform.createRecord(token: user, ["title": "Budget"]).record.recordID
            let transcribe = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, id), token: user, json: ["task_type": 0]
            ).decode(RecordTask.self)
            #expect(try await platform.waitForRecordTask(id, transcribe.taskID, token: user).status == .success)

            let summary = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, id), token: user, json: ["task_type": 1]
            ).decode(RecordTask.self)
            // The summary is running: its job holds the provider's request open.
            let arrived = ContinuousClock.now + .seconds(60)
            while provider.arrivals.load(ordering: .relaxed) == 0 && ContinuousClock.now < arrived {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(provider.arrivals.load(ordering: .relaxed) > 0)
            #expect(try await platform.metrics().contains("earshot_jobs_running{kind=\"record-note\"} 1"))

            let deleted = ContinuousClock.now
            #expect(try await platform.send("DELETE", platform.recordPath(APIPath.record, id), token: user).status == 204)
            var stopped = false
            while ContinuousClock.now - deleted < .seconds(10) {
                if try await platform.metrics().contains("earshot_jobs_running{kind=\"record-note\"} 0") {
                    stopped = true
                    break
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(stopped, "the summary job still runs 10 s after its record was deleted")
            #expect(ContinuousClock.now - deleted < .seconds(5))
            let task = try await platform.send(
                "GET", platform.recordPath(APIPath.recordTask, id, task: summary.taskID), token: user)
            #expect(task.status == 404)

            // Per-kind metrics: the transcription succeeded; every kind is listed.
            let metrics = try await platform.metrics()
            #expect(metrics.contains("earshot_jobs_finished_total{kind=\"transcription\",state=\"succeeded\"} 1"))
            for kind in ["transcription", "record-note", "webhook"] {
                #expect(metrics.contains("earshot_job_run_seconds_count{kind=\"\(kind)\"}"), "\(kind)")
                #expect(metrics.contains("earshot_jobs_running{kind=\"\(kind)\"}"), "\(kind)")
            }
        }
    }
}

extension TestPlatform {
    /// `GET /metrics` as text.
    func metrics() async throws -> String {
        try await send("GET", "/metrics").text
    }
}
