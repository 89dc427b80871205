import EarshotCore
import EarshotPostgres
import EarshotServer
import EarshotStore
import Foundation

enum MigrateCommand: Command {
    static let name = "migrate"
    static let spec = CommandSpec(
        name: "earshot migrate",
        abstract: "Apply the database migrations this binary carries (or, with --check, list the pending ones).",
        discussion: """
            Opens the database named by --database (SQLite file or PostgreSQL URL), applies every pending migration \
            of every component in order, each in its own transaction, and prints what it applied. On PostgreSQL an \
            advisory lock makes concurrent runs (and servers starting at the same time) migrate exactly once. Exit \
            code 1 with --check when migrations are pending.
            """,
        options: ServerConfiguration.commandLineOptions,
        flags: [.init("check", help: "Only list the pending migrations (PostgreSQL).")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(
                arguments: arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            writeError("earshot migrate: \(error)")
            return 78
        }
        LogSink.shared.bootstrap(level: .warning, format: configuration.logFormat)
        if arguments.flag("check"), case .sqlite = configuration.metadataBackend {
            writeError("earshot migrate: --check needs a PostgreSQL --database; a SQLite file is migrated when opened")
            return 64
        }
        do {
            let store = try await Application.openMetadataStore(configuration, migrate: false)
            let pending = try await store.pendingMigrations(ServerSchema.components)
            if arguments.flag("check") {
                for migration in pending { print("pending: \(migration)") }
                print(pending.isEmpty ? "up to date (\(configuration.databaseDescription))" : "\(pending.count) pending")
                await store.close()
                return pending.isEmpty ? 0 : 1
            }
            let applied: [Migration]
            if let postgres = store as? PostgresMetadataStore {
                applied = try await postgres.migrateExclusively(ServerSchema.components)
            } else {
                applied = try await store.migrate(ServerSchema.components)
            }
            for migration in applied { print("applied: \(migration)") }
            print("up to date (\(configuration.databaseDescription)): \(applied.count) applied")
            await store.close()
            return 0
        } catch let error as StoreError {
            writeError("earshot migrate: \(error.message)")
            return error.code == .unavailable ? 69 : 1
        }
    }
}
