import EarshotCore
import EarshotServer
import Foundation
import Testing

@Suite struct ConfigurationTests {
    let spec = CommandSpec(
        name: "earshot serve", abstract: "Serve.", options: ServerConfiguration.commandLineOptions)

    func load(
        _ arguments: [String] = [], environment: [String: String] = [:], files: [String: String] = [:]
    ) throws(ConfigurationError) -> ServerConfiguration {
        let parsed = try! spec.parse(arguments)
        return try ServerConfiguration.load(arguments: parsed, environment: environment) { path in
            guard let text = files[path] else { throw CocoaError(.fileNoSuchFile) }
            return Data(text.utf8)
        }
    }

    @Test func embeddedDefaultsAreLoopbackSQLiteAndDataDirectory() throws {
        let config = try load()
        #expect(config.host == "127.0.0.1")
        #expect(config.port == 8080)
        #expect(config.resolvedDatabasePath == "./data/earshot.sqlite")
        #expect(config.resolvedBlobDirectory == "./data/blobs")
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheFile() throws {
        let files = ["/etc/earshot.json": #"{"port": 7000, "threads": 3, "log-level": "debug", "host": "::1"}"#]
        let environment = ["EARSHOT_CONFIG": "/etc/earshot.json", "EARSHOT_PORT": "7001", "EARSHOT_THREADS": "5"]
        let config = try load(["--port", "7002"], environment: environment, files: files)
        #expect(config.port == 7002)  // flag
        #expect(config.threads == 5)  // environment over file
        #expect(config.logLevel == .debug)  // file over default
        #expect(config.host == "::1")
        #expect(config.connectionTimeout == .seconds(30))  // default
    }

    @Test func configFlagBeatsConfigVariable() throws {
        let files = ["a.json": #"{"port": "1"}"#, "b.json": #"{"port": "2"}"#]
        let config = try load(["--config", "b.json"], environment: ["EARSHOT_CONFIG": "a.json"], files: files)
        #expect(config.port == 2)
    }

    @Test func unitsAreUnderstood() throws {
        let config = try load([
            "--connection-timeout", "2m", "--shutdown-grace", "500ms", "--max-json-body", "2MiB",
            "--max-header-bytes", "8KiB", "--database", "sqlite:/tmp/x.sqlite", "--blob-dir", "/tmp/blobs",
        ])
        #expect(config.connectionTimeout == .seconds(120))
        #expect(config.shutdownGrace == .milliseconds(500))
        #expect(config.maxJSONBody == 2 << 20)
        #expect(config.maxHeaderBytes == 8 << 10)
        #expect(config.resolvedDatabasePath == "/tmp/x.sqlite")
        #expect(config.resolvedBlobDirectory == "/tmp/blobs")
    }

    @Test func everyProblemIsReportedWithItsSource() {
        let files = ["c.json": #"{"prot": 1, "threads": true}"#]
        #expect {
            try load(
                ["--port", "70000", "--host", "example.com"],
                environment: ["EARSHOT_CONFIG": "c.json", "EARSHOT_LOG_LEVEL": "loud"], files: files)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            let text = error.description
            return error.issues.count == 5
                && text.contains("prot (from config file c.json): unknown setting; did you mean 'port'?")
                && text.contains("threads (from config file c.json): must be a string or a number")
                && text.contains("log-level (from EARSHOT_LOG_LEVEL): 'loud' is not one of")
                && text.contains("port (from command line): '70000' is not a port number (0-65535)")
                && text.contains("host (from command line): 'example.com' is not an IPv4 or IPv6 address")
        }
    }

    @Test func unreadableOrMalformedFileIsAClearError() {
        #expect(throws: ConfigurationError.self) { try load(["--config", "missing.json"]) }
        #expect {
            try load(["--config", "bad.json"], files: ["bad.json": "[1,2"])
        } throws: { error in
            (error as? ConfigurationError)?.issues.first?.message == "not a JSON object of settings"
        }
    }

    @Test(arguments: [
        ["--threads", "0"], ["--connection-timeout", "0s"], ["--shutdown-grace", "soon"], ["--max-json-body", "12"],
        ["--max-header-bytes", "100GiB"], ["--database", "postgresql://"], ["--blob-dir", "s3://bucket"],
        ["--log-format", "xml"], ["--data-dir", ""],
    ])
    func invalidValuesAreRefused(arguments: [String]) {
        #expect(throws: ConfigurationError.self) { try load(arguments) }
    }
}
