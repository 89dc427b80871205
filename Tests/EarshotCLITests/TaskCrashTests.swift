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
        let token = try await call(base, "POST", "/open/partner/token", json: credentials)["access_token"] as! String
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
            Self.isFinal($0)
        }
        let finishedB = try await poll(base, b, token: token, server: server, timeout: .seconds(300)) {
            Self.isFinal($0)
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
        let stopped = try await server.waitForExit(timeout: .seconds(30))
        #expect(stopped.status == 0, "\(stopped)")
        server = try Program.earshot.start(arguments)
        base = try await server.listeningURL(after: "earshot listening")
        let finishedC = try await poll(base, c, token: token, server: server, timeout: .seconds(300)) {
            Self.isFinal($0)
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

    // MARK: Helpers

    static func isFinal(_ task: [String: Any]) -> Bool {
        ["SUCCESS", "FAILURE", "REVOKED"].contains(task["status"] as? String)
    }

    /// Polls task `id` until `done` holds; a task stuck past `timeout` fails the test with `server`'s stderr.
    func poll(
        _ base: String, _ id: String, token: String, server: ChildProcess, timeout: Duration = .seconds(120),
        until done: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let task = try await call(base, "GET", "/open/partner/transcriptions/\(id)", token: token)
            if done(task) { return task }
            try #require(ContinuousClock.now < deadline, "task \(id) stuck: \(task)\n\(server.diagnostics)")
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func call(
        _ base: String, _ method: String, _ path: String, token: String? = nil, json: Any? = nil
    ) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json { request.httpBody = try JSONSerialization.data(withJSONObject: json) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        try #require(
            (200..<300).contains(status), "\(method) \(path): \(status) \(String(decoding: data, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Uploads `content` (one or more parts) and returns its DownloadUrl.
    func upload(_ base: String, token: String, _ content: Data) async throws -> String {
        let plan = try await call(
            base, "POST", "/open/partner/files/upload/generate-presigned-urls", token: token,
            json: ["filesize": content.count, "filetype": "wav"])
        let chunk = plan["ChunkSize"] as! Int
        var parts: [[String: Any]] = []
        for entry in plan["Parts"] as! [[String: Any]] {
            let number = entry["PartNumber"] as! Int
            var request = URLRequest(url: URL(string: entry["PresignedUrl"] as! String)!)
            request.httpMethod = "PUT"
            let (_, response) = try await URLSession.shared.upload(for: request, from: content.part(number, chunk))
            let etag = try #require((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag"))
            parts.append(["part_number": number, "etag": etag])
        }
        let done = try await call(
            base, "POST", "/open/partner/files/upload/complete-upload", token: token,
            json: ["file_id": plan["FileId"]!, "upload_id": plan["UploadId"]!, "filetype": "wav", "part_list": parts])
        return done["DownloadUrl"] as! String
    }
}
