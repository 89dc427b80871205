import EarshotServerTestSupport
import EarshotTestSupport
import Foundation
import Testing

/// `/readyz` on the scaled-out backends when PostgreSQL goes away at run time and comes back.
@Suite(.enabled(if: ScaleOutBackends.available, "no PostgreSQL/S3: run through scripts/with-backends (make test does)"))
struct ScaledReadinessTests {
    @Test func readinessFollowsTheDatabaseAndRequestsFailCleanlyMeanwhile() async throws {
        try await TestPlatform.with(backend: .scaled) { platform in
            let admin = try #require(ScaleOutBackends.postgresAdminURL)
            let database =
                try #require(platform.configuration.database?.split(separator: "/").last)
                .split(separator: "?").first.map(String.init) ?? ""
            let ready = try await platform.send("GET", "/readyz")
            #expect(ready.status == 200, "\(ready.text)")
            let (_, _, token) = try await platform.newUser()

            // The database refuses new connections and ends the server's.
            try ScaleOutBackends.psql(admin, "ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
            try ScaleOutBackends.psql(
                admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'")
            let down = try await platform.send("GET", "/readyz")
            #expect(down.status == 503, "\(down.text)")
            let object = try JSONSerialization.jsonObject(with: down.data) as? [String: Any]
            let checks = object?["checks"] as? [String: [String: Any]]
            #expect(checks?["metadata"]?["ok"] as? Bool == false)
            #expect(checks?["blobs"]?["ok"] as? Bool == true)
            let refused = try await platform.send("GET", "/open/partner/records", token: token)
            #expect(refused.status >= 500, "\(refused.text)")
            #expect(refused.text.contains("\"code\""), "an error document, not a broken connection: \(refused.text)")

            // Back: the pool reconnects on next use.
            try ScaleOutBackends.psql(admin, "ALTER DATABASE \(database) ALLOW_CONNECTIONS true")
            let deadline = ContinuousClock.now + .seconds(10)
            var again = try await platform.send("GET", "/readyz")
            while again.status != 200, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                again = try await platform.send("GET", "/readyz")
            }
            #expect(again.status == 200, "\(again.text)")
        }
    }
}
