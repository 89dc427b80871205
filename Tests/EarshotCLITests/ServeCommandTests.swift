import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `earshot` run as a user runs it: the built binary in a child process.
@Suite(.serialized) struct ServeCommandTests {
    @Test func serveAnswersHealthzAndStopsCleanlyOnSIGTERM() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try Program.earshot.start(
            ["serve", "--port", "0", "--data-dir", directory.path], environment: ["EARSHOT_LOG_FORMAT": "logfmt"])
        defer { server.stop() }

        let url = try await server.listeningURL(after: "earshot listening")
        #expect(url.hasPrefix("http://127.0.0.1:"))

        let (data, response) = try await URLSession.shared.data(from: URL(string: "\(url)/healthz")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"status":"ok"}"#)

        server.send(SIGTERM)
        let stopped = try await server.waitForExit(timeout: .seconds(15))
        #expect(stopped.status == 0, "\(stopped)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("earshot.sqlite").path))
    }

    @Test func invalidConfigurationExitsWithEveryProblemListed() async throws {
        let result = try await Program.earshot.run(
            ["serve", "--port", "99999", "--threads", "0"], environment: ["EARSHOT_LOG_LEVEL": "chatty"])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("port (from command line): '99999' is not a port number"))
        #expect(result.stderr.contains("threads (from command line)"))
        #expect(result.stderr.contains("log-level (from EARSHOT_LOG_LEVEL)"))
    }

    @Test func aPortInUseIsAClearErrorAndExitCode() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try Program.earshot.start(["serve", "--port", "0", "--data-dir", directory.path])
        defer { first.stop() }
        let line = try await first.waitForLine(containing: "earshot listening", timeout: .seconds(90))
        let port = try #require(line.split(separator: ":").last?.split(separator: " ").first)
        let second = try await Program.earshot.run(
            ["serve", "--port", String(port), "--data-dir", directory.appendingPathComponent("other").path])
        #expect(second.status == 1, "\(second)")
        #expect(second.stderr.contains("earshot serve: "))
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port)"))
    }

    @Test func anUnreachableDatabaseOrObjectStoreAtStartIsAClearErrorAndExitCode() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Port 1 on loopback: nothing listens, the connection is refused at once.
        let database = try await Program.earshot.run(
            ["serve", "--port", "0", "--data-dir", directory.path, "--database", "postgresql://earshot@127.0.0.1:1/e"])
        #expect(database.status == 69, "\(database)")
        #expect(database.stderr.contains("cannot connect to PostgreSQL at postgresql://earshot@127.0.0.1:1/e"))
        #expect(database.stderr.contains("check the database URL"), "\(database.stderr)")
        let store = try await Program.earshot.run(
            ["serve", "--port", "0", "--data-dir", directory.path, "--blob-store", "s3://127.0.0.1:1/audio"],
            environment: ["AWS_ACCESS_KEY_ID": "earshot", "AWS_SECRET_ACCESS_KEY": "not-a-secret"])
        #expect(store.status == 69, "\(store)")
        #expect(store.stderr.contains("cannot reach the object store"), "\(store.stderr)")
        #expect(store.stderr.contains("check the blob-store URL") && !store.stderr.contains("NSURLErrorDomain"))
    }

    @Test func helpListsCommandsAndOptions() async throws {
        let root = try await Program.earshot.run(["--help"])
        #expect(root.status == 0, "\(root)")
        #expect(root.stdout.contains("serve"))
        #expect(root.stdout.contains("version"))
        let serve = try await Program.earshot.run(["serve", "--help"])
        #expect(serve.status == 0, "\(serve)")
        #expect(serve.stdout.contains("--port <PORT>"))
        #expect(serve.stdout.contains("[EARSHOT_PORT]"))
    }

    @Test func unknownCommandsAndOptionsAreUsageErrors() async throws {
        let command = try await Program.earshot.run(["serv"])
        #expect(command.status == 64, "\(command)")
        #expect(command.stderr.contains("unknown command 'serv'; did you mean 'serve'?"))
        let option = try await Program.earshot.run(["serve", "--prot", "1"])
        #expect(option.status == 64, "\(option)")
        #expect(option.stderr.contains("did you mean '--port'?"))
    }
}
