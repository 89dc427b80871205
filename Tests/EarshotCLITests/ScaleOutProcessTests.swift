import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The scaled-out configuration run as an operator runs it: PostgreSQL and an S3 bucket (SeaweedFS, both started by
/// `scripts/with-backends`), one `earshot serve --role api` and two `earshot worker` processes. The seed flow (upload
/// in presigned parts, transcription by file URL, download of the audio) goes through the API node while workers on
/// other processes do the decoding; a worker kill -9'd mid-decode loses its job to the other, which finishes it
/// exactly once.
@Suite(
    .serialized, .exclusive("speech decoding"),
    .enabled(if: ScaleOutBackends.available, "no PostgreSQL/S3: run through scripts/with-backends (make test does)"),
    .enabled(if: TestEnvironment.exist(TestEnvironment.asrFastModel), "speech models not installed (run `make models`)")
)
struct ScaleOutProcessTests {
    /// The settings every process shares (one database, one bucket), plus a data directory of its own.
    static func settings(database: String, bucket: String, credentials: URL, directory: URL) throws -> [String] {
        let s3 = try #require(ScaleOutBackends.s3)
        let endpoint = s3.endpoint.absoluteString.replacingOccurrences(of: "http://", with: "s3+http://")
        return [
            "--database", database, "--blob-store", "\(endpoint)/\(bucket)", "--blob-store-credentials-file",
            credentials.path, "--data-dir", directory.path, "--model-home", TestEnvironment.home.path,
            "--task-lease", "2s", "--task-retry-delay", "1s", "--upload-chunk-size", "5MiB",
        ]
    }

    @Test func workersOnOtherProcessesFinishEveryJobOnceAndAKilledWorkersJobMovesOn() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("scale")
        defer { try? FileManager.default.removeItem(at: directory) }
        let s3 = try #require(ScaleOutBackends.s3)
        let credentials = directory.appendingPathComponent("s3-credentials")
        try Data("\(s3.accessKeyID)\n\(s3.secretAccessKey)\n".utf8).write(to: credentials)
        let database = try ScaleOutBackends.newDatabase("scale")
        let bucket = ScaleOutBackends.newBucketName("scale")
        func node(_ name: String) throws -> [String] {
            let home = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            return try Self.settings(database: database, bucket: bucket, credentials: credentials, directory: home)
        }

        let created = try await Program.earshot.run([
            "partners", "create", "Acme", "--json", "--database", database, "--data-dir", directory.path,
        ])
        let partner = try #require(
            try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String], "\(created)")
        let api = try Program.earshot.start(
            ["serve", "--role", "api", "--port", "0", "--log-level", "notice"] + (try node("api")))
        defer { api.kill() }
        var workers = try ["w1", "w2"].map { name in
            try Program.earshot.start(
                ["worker", "--port", "0", "--workers", "1", "--log-level", "info"] + (try node(name)))
        }
        defer { for worker in workers { worker.kill() } }
        let base = try await api.listeningURL(after: "earshot listening")
        for worker in workers { _ = try await worker.listeningURL(after: "earshot listening") }

        // The seed flow on the API node: upload in presigned parts (into the bucket), transcribe by file URL.
        let token =
            try await call(
                base, "POST", "/open/partner/token",
                json: partner.filter { ["client_id", "client_secret"].contains($0.key) })["access_token"] as! String
        let jfk = try Data(contentsOf: TestEnvironment.jfk)
        // Direct uploads (upload-direct, on by default with a bucket; parts of at least S3's 5 MiB): the plan's part
        // URLs are the bucket's, so the audio goes straight into it.
        let probe = try await call(
            base, "POST", "/open/partner/files/upload/generate-presigned-urls", token: token,
            json: ["filesize": jfk.count, "filetype": "wav"])
        let partURL = ((probe["Parts"] as? [[String: Any]])?.first?["PresignedUrl"] as? String) ?? ""
        #expect(partURL.hasPrefix(s3.endpoint.absoluteString) && partURL.contains("X-Amz-Signature="), "\(partURL)")
        let url = try await upload(base, token: token, jfk)
        let (downloaded, response) = try await URLSession.shared.data(from: URL(string: url)!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(downloaded == jfk, "the download (307 to a presigned GET of the bucket) is the uploaded audio")
        // The first task decodes twice as long (22 s of speech), so the kill lands mid-decode.
        let long = try await upload(base, token: token, TestWAV.repeating(jfk, times: 2))
        var tasks: [String] = []
        for file in [long, url, url] {
            tasks.append(
                try await call(
                    base, "POST", "/open/partner/transcriptions", token: token,
                    json: ["file_url": file, "model": "asr-fast"])["task_id"] as! String)
        }

        // Kill -9 the worker that decodes the first task, mid-decode.
        _ = try await poll(base, tasks[0], token: token, server: api, timeout: .seconds(180)) {
            ["STARTED", "PROGRESS"].contains($0["status"] as? String)
        }
        let deadline = ContinuousClock.now + .seconds(30)
        var victim: Int?
        while victim == nil, ContinuousClock.now < deadline {
            victim = workers.firstIndex { $0.output(.stderr).contains(tasks[0]) }
            if victim == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let killed = try #require(victim, "no worker logged the start of \(tasks[0])")
        let killedAt = ContinuousClock.now
        _ = workers[killed].kill()
        let survivor = workers[1 - killed]

        // Re-queued by a lease reaper (the API node's or the survivor's) once the 2 s lease runs out.
        func requeued() -> Bool {
            (api.output(.stderr) + survivor.output(.stderr)).split(separator: "\n").contains {
                $0.contains("job lease expired") && $0.contains(tasks[0])
            }
        }
        while !requeued(), ContinuousClock.now < killedAt + .seconds(60) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(requeued(), "the killed worker's job was not re-queued within 60 s")
        let requeuedAfter = ContinuousClock.now - killedAt
        let restarted = try await poll(base, tasks[0], token: token, server: survivor, timeout: .seconds(300)) {
            ($0["attempts"] as? Int ?? 0) >= 2
        }
        let restartedAfter = ContinuousClock.now - killedAt
        var finished: [[String: Any]] = []
        for id in tasks {
            finished.append(
                try await poll(base, id, token: token, server: survivor, timeout: .seconds(300)) { isFinalTask($0) })
        }
        print(
            "scale-out: after kill -9 of a worker (lease 2 s): job re-queued in \(requeuedAfter), claimed again by "
                + "the other worker (one slot, decoding the other jobs first) in \(restartedAfter) "
                + "(status \(restarted["status"] ?? "?")), all 3 jobs done in \(ContinuousClock.now - killedAt)")
        for task in finished {
            #expect(task["status"] as? String == "SUCCESS", "\(task)")
            #expect(((task["segments"] as? [Any])?.count ?? 0) >= 1, "\(task)")
        }
        // The killed attempt counts once; the others ran once.
        #expect(finished[0]["attempts"] as? Int == 2, "\(finished[0])")
        #expect(finished[1...].allSatisfy { $0["attempts"] as? Int == 1 }, "\(finished)")
        #expect(survivor.output(.stderr).contains("job started"), "the surviving worker ran jobs")
        #expect(!api.output(.stderr).contains("job started"), "the API node runs no jobs")
        workers.remove(at: killed)
    }
}
