import EarshotCore
import EarshotServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The application on a real port with real SQLite and blob directories in a temp dir.
@Suite(.timeLimit(.minutes(5))) struct ApplicationTests {
    /// Runs the application on port 0 in `directory`, calls `body` with its base URL, then stops it.
    func withApplication(
        in directory: URL, _ body: @Sendable (URL) async throws -> Void
    ) async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory.path
        configuration.shutdownGrace = .seconds(2)
        let application = Application(configuration: configuration)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let serving = Task { try await application.run { continuation.yield($0) } }
        defer { serving.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        try await body(URL(string: "http://127.0.0.1:\(port)")!)
        serving.cancel()
        _ = try await serving.value
    }

    func get(_ url: URL) async throws -> (status: Int, body: String, headers: [String: String]) {
        let (data, response) = try await URLSession.shared.data(from: url)
        let http = response as! HTTPURLResponse
        let headers = Dictionary(
            uniqueKeysWithValues: http.allHeaderFields.map { ("\($0.key)".lowercased(), "\($0.value)") })
        return (http.statusCode, String(decoding: data, as: UTF8.self), headers)
    }

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func healthReadinessAndMetricsAnswer() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withApplication(in: directory) { base in
            let health = try await get(base.appendingPathComponent("healthz"))
            #expect(health.status == 200)
            #expect(health.body == #"{"status":"ok"}"#)
            #expect(health.headers["x-request-id"]?.hasPrefix("req_") == true)

            let ready = try await get(base.appendingPathComponent("readyz"))
            #expect(ready.status == 200)
            #expect(ready.body.contains(#""status":"ready""#))

            let missing = try await get(base.appendingPathComponent("no/such/route"))
            #expect(missing.status == 404)
            #expect(missing.body.contains(#""code":"NOT_FOUND""#))

            let metrics = try await get(base.appendingPathComponent("metrics"))
            #expect(metrics.status == 200)
            #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(
                metrics.body.contains(#"earshot_http_requests_total{method="GET",route="/healthz",status="200"} 1"#))
            #expect(
                metrics.body.contains(#"earshot_http_requests_total{method="GET",route="unmatched",status="404"} 1"#))
            #expect(metrics.body.contains("process_resident_memory_bytes "))
        }
        // The embedded defaults were created under the data directory.
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("earshot.sqlite").path))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("blobs").path))
    }

    @Test func readinessFailsWhenTheBlobStoreIsGone() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withApplication(in: directory) { base in
            let blobs = directory.appendingPathComponent("blobs")
            try FileManager.default.removeItem(at: blobs)
            try Data("not a directory".utf8).write(to: blobs)
            let ready = try await get(base.appendingPathComponent("readyz"))
            #expect(ready.status == 503)
            let object = try JSONSerialization.jsonObject(with: Data(ready.body.utf8)) as? [String: Any]
            let checks = object?["checks"] as? [String: [String: Any]]
            #expect(object?["status"] as? String == "unavailable")
            #expect(checks?["blobs"]?["ok"] as? Bool == false)
            #expect((checks?["blobs"]?["error"] as? String)?.contains("not a directory") == true)
            #expect(checks?["metadata"]?["ok"] as? Bool == true)
        }
    }

    @Test func aDatabaseFromANewerEarshotIsRefusedAtStart() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withApplication(in: directory) { _ in }
        // Pretend a newer binary migrated the file.
        let python = try #require(Program.tool("python3"), "python3 is not installed")
        let sqlite = try await python.run([
            "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"insert into schema_component_migrations(component,version,name,checksum,applied_at) values ('records',999,'future','x','now')\"); c.commit()",
            directory.appendingPathComponent("earshot.sqlite").path,
        ])
        try #require(sqlite.status == 0, "\(sqlite)")
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory.path
        await #expect {
            try await Application(configuration: configuration).run()
        } throws: { error in
            "\(error)".contains("999")
        }
    }
}
