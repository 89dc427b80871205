import EarshotHTTP
import EarshotTestSupport
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ObservabilityTests {
    @Test func everyRequestWritesOneAccessLogLine() async throws {
        let router = Router()
        router.get("/records/{id}") { _, _ in .text("hello") }
        let id = "log-test-\(UUID().uuidString.prefix(8))"
        try await withServer(router) { port in
            _ = try await fetch(port, "/records/rec_1", headers: ["X-Request-Id": id])
            _ = try await fetch(port, "/nowhere", headers: ["X-Request-Id": id + "-404"])
        }
        let lines = TestLog.lines()
        let ok = lines.filter { $0.contains("request_id=\(id) ") }
        #expect(ok.count == 1)
        let line = try #require(ok.first)
        for part in [
            "level=info", "label=http", "msg=request", "method=GET", "path=/records/rec_1", "route=/records/{id}",
            "status=200", "bytes=5", "duration_ms=", "remote=127.0.0.1",
        ] {
            #expect(line.contains(part), "missing \(part) in \(line)")
        }
        let missing = try #require(lines.first { $0.contains("request_id=\(id)-404 ") })
        #expect(missing.contains("status=404") && missing.contains("route=unmatched"))
    }

    @Test func metricsCountRequestsByRouteAndRenderPrometheusText() async throws {
        let router = Router()
        let metrics = HTTPMetrics()
        router.get("/healthz") { _, _ in .text("ok") }
        router.get("/metrics") { _, _ in .text(metrics.render(), contentType: "text/plain; version=0.0.4") }
        let text = try await withServer(router, metrics: metrics) { port in
            for _ in 0..<3 { _ = try await fetch(port, "/healthz") }
            _ = try await fetch(port, "/healthz", method: "POST", body: Data())
            // The completion callback runs just after the response is sent: wait for the counters.
            #expect(try await eventually { metrics.count(method: "GET", route: "/healthz", status: 200) == 3 })
            #expect(try await eventually { metrics.count(method: "POST", route: "unmatched", status: 405) == 1 })
            return try await fetch(port, "/metrics").text
        }
        #expect(text.contains("# TYPE earshot_http_requests_total counter"))
        #expect(text.contains("earshot_http_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"} 3"))
        #expect(text.contains("earshot_http_requests_total{method=\"POST\",route=\"unmatched\",status=\"405\"} 1"))
        #expect(text.contains("# TYPE earshot_http_request_duration_seconds histogram"))
        #expect(
            text.contains(
                "earshot_http_request_duration_seconds_bucket{method=\"GET\",route=\"/healthz\",le=\"+Inf\"} 3"))
        #expect(text.contains("earshot_http_request_duration_seconds_count{method=\"GET\",route=\"/healthz\"} 3"))
        #expect(text.contains("le=\"0.005\""))
        // The request rendering the metrics is itself in flight.
        #expect(text.contains("earshot_http_requests_in_flight 1"))
    }
}
