import EarshotCore
import EarshotServer
import Foundation

enum ServeCommand: Command {
    static let name = "serve"
    static let spec = CommandSpec(
        name: "earshot serve",
        abstract: "Run the Earshot server (embedded defaults: SQLite file and ./data blobs on 127.0.0.1:8080).",
        discussion: """
            Settings come from flags, then EARSHOT_* environment variables, then the JSON file given by --config \
            or EARSHOT_CONFIG, then the defaults. SIGTERM or SIGINT stops accepting connections and lets in-flight \
            requests finish within --shutdown-grace.
            """,
        options: ServerConfiguration.commandLineOptions)

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(
                arguments: arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            writeError("earshot serve: \(error)")
            return 78  // EX_CONFIG
        }
        LogSink.shared.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let application = Application(configuration: configuration)
        try await SignalHandling.runUntilTerminated {
            try await application.run()
        }
        return 0
    }
}
