import EarshotCore
import EarshotServer
import EarshotStore
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
        try await serve(arguments, command: "earshot serve", role: nil)
    }

    /// Loads the configuration (with `role` forced when given) and serves until SIGTERM/SIGINT. Exit codes: 78 for
    /// bad configuration, 69 (EX_UNAVAILABLE) when the database or object store cannot be reached at start.
    static func serve(_ arguments: ParsedArguments, command: String, role: ServerConfiguration.Role?) async throws
        -> Int32
    {
        var configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(
                arguments: arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            writeError("\(command): \(error)")
            return 78  // EX_CONFIG
        }
        if let role { configuration.role = role }
        LogSink.shared.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let application = Application(configuration: configuration)
        do {
            let stop = try await SignalHandling.cancellingOnInterrupt { try await application.run() }
            if stop == .decodesStillRunning {
                // The stores are closed; only a decode thread inside whisper.cpp is left, and exit()'s static
                // destructors would pull ggml's state from under it.
                fflush(nil)
                _exit(0)
            }
        } catch let error as StoreError where error.code == .unavailable {
            writeError("\(command): \(error.message)")
            return 69  // EX_UNAVAILABLE
        } catch let error as ConfigurationError {
            writeError("\(command): \(error)")
            return 78  // EX_CONFIG
        }
        return 0
    }
}
