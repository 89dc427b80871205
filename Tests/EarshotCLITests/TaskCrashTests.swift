import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Durable tasks across crashes of `earshot serve`, run as a user runs it: a server SIGKILLed mid-decode leaves
/// its task to be re-queued when the lease expires and finished exactly once after the restart; queued tasks
/// survive; a graceful stop hands the running task back without using up an attempt; finished tasks stay finished.
@Suite(
    .serialized, .exclusive("speech decoding"),
    .enabled(if: TestEnvironment.exist(TestEnvironment.asrFastModel), "speech models not installed (run `make models`)")
)
struct TaskCrashTests {
    static var home: String { TestEnvironment.home.path }

    @Test func aKilledServerFinishesItsTasksExactlyOnceAfterRestart() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let created = try await Program.earshot.run([
            "partners", "create", "Acme", "--json", "--data-dir", directory.path,
        ])
        let credentials = try #require(
            try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])
        let arguments = [
            "serve", "--port", "0", "--data-dir", directory.path, "--model-home", Self.home, "--task-lease", "2s",
            "--task-retry-delay", "1s", "--upload-chunk-size", "1MiB",
            // Start, stop and worker events but no line per request: the stderr tail in a failure message.
            "--log-level", "notice",
        ]

        var server = try Program.earshot.start(arguments)
        // Whichever server is current when the test ends (even by a failed expectation) is stopped.
        defer { server.kill() }
        var base = try await server.listeningURL(after: "earshot listening")
        let token =
            try await call(
                base, "POST", "/open/partner/token",
                json: credentials.filter { ["client_id", "client_secret"].contains($0.key) })["access_token"] as! String
        let jfk = try Data(contentsOf: TestEnvironment.jfk)
        let long = try await upload(base, token: token, TestWAV.repeating(jfk, times: 4))
        let short = try await upload(base, token: token, jfk)
        let a =
            try await call(
                base, "POST", "/open/partner/transcriptions", token: token,
                json: ["file_url": long, "model": "asr-fast"])["task_id"] as! String
        let b =
            try await call(
                base, "POST", "/open/partner/transcriptions", token: token,
                json: ["file_url": short, "model": "asr-fast"])["task_id"] as! String
        _ = try await poll(base, a, token: token, server: server) {
            ["STARTED", "PROGRESS"].contains($0["status"] as? String)
        }

        // kill -9 mid-decode: A is running, B is queued.
        server.kill()
        server = try Program.earshot.start(arguments)
        base = try await server.listeningURL(after: "earshot listening")
        let finishedA = try await poll(base, a, token: token, server: server, timeout: .seconds(300)) {
            isFinalTask($0)
        }
        let finishedB = try await poll(base, b, token: token, server: server, timeout: .seconds(300)) {
            isFinalTask($0)
        }
        #expect(finishedA["status"] as? String == "SUCCESS", "\(finishedA)")
        #expect(finishedA["attempts"] as? Int == 2)  // the killed attempt, then the one that finished
        #expect(finishedB["status"] as? String == "SUCCESS", "\(finishedB)")
        #expect(finishedB["attempts"] as? Int == 1)
        #expect(((finishedA["segments"] as? [Any])?.count ?? 0) >= 4)

        // A graceful stop mid-decode hands the task back without spending an attempt.
        let c =
            try await call(
                base, "POST", "/open/partner/transcriptions", token: token,
                json: ["file_url": long, "model": "asr-fast"])["task_id"] as! String
        _ = try await poll(base, c, token: token, server: server) {
            ["STARTED", "PROGRESS"].contains($0["status"] as? String)
        }
        server.send(SIGTERM)
        // whisper.cpp looks at the abort flag only between encoder and decoder passes, so on a loaded machine the
        // cancelled decode may take a while to leave; the server waits up to 30 s for it after its 10 s drain.
        let stopped = try await server.waitForExit(timeout: .seconds(60))
        #expect(stopped.status == 0, "\(stopped)")
        server = try Program.earshot.start(arguments)
        base = try await server.listeningURL(after: "earshot listening")
        let finishedC = try await poll(base, c, token: token, server: server, timeout: .seconds(300)) {
            isFinalTask($0)
        }
        #expect(finishedC["status"] as? String == "SUCCESS", "\(finishedC)")
        #expect(finishedC["attempts"] as? Int == 1)
        // Finished tasks stay as they were.
        let again = try await call(base, "GET", "/open/partner/transcriptions/\(a)", token: token)
        #expect(again["updated_at_ms"] as? Int == finishedA["updated_at_ms"] as? Int)
        #expect(again["status"] as? String == "SUCCESS")
        server.send(SIGTERM)
        try await server.waitForExit(timeout: .seconds(15))
    }
}
