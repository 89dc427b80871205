public import EarshotCore
public import EarshotStore
internal import Foundation
internal import Synchronization

/// The scale-out metadata store: PostgreSQL 13 or later through libpq, shared by any number of Earshot processes.
///
/// A pool of up to ``Configuration/maximumConnections`` connections, each used by one task at a time on its own
/// dispatch queue (libpq blocks; the Swift cooperative pool never does). Transactions give the guarantees the
/// embedded SQLite store gives:
///
/// - ``read(_:)`` runs in `REPEATABLE READ READ ONLY`: one consistent snapshot for the whole closure;
/// - ``write(_:)`` runs in `SERIALIZABLE`: the outcome is that of some serial order of all writers, as with
///   SQLite's single writer. A transaction that conflicts with a concurrent one is rolled back and its closure run
///   again (up to ``Configuration/serializationRetries`` times), so write closures must only touch the database;
/// - ``write(_:_:)`` with ``WriteIsolation/statement`` runs in `READ COMMITTED`, for one-statement transactions
///   such as the job queue's `FOR UPDATE SKIP LOCKED` claim.
///
/// Portable SQL runs unchanged: `?` placeholders become `$1…`, parameter types are inferred by the server (see
/// `PostgresConnection`), integers and booleans read back as integers. Opening connects (failing fast with a clear
/// error when the server is unreachable or refuses the credentials), then applies the schema's PostgreSQL migrations
/// under an advisory lock, so several processes starting at once migrate exactly once. See docs/scale-out.md.
public final class PostgresMetadataStore: MetadataStore, MetadataNotifications {
    /// Where the database is and how connections behave.
    public struct Configuration: Sendable {
        /// A libpq connection URI, `postgresql://user@host:5432/earshot?sslmode=require` (or `key=value` pairs).
        public var url: String
        /// The password, when it is kept out of the URL (read from a file or the environment). Overrides the URL's.
        public var password: String?
        /// Most connections this process opens (they are opened on demand).
        public var maximumConnections = 10
        /// How often a `SERIALIZABLE` write that conflicted with a concurrent one is run again before failing with
        /// ``StoreError/Code-swift.struct/unavailable``.
        public var serializationRetries = 30
        /// How long connecting may take (unless the URL sets `connect_timeout`).
        public var connectTimeout: Duration = .seconds(5)
        /// The schema applied at open: components in dependency order.
        public var schema: [SchemaComponent] = StoreSchema.components
        /// Apply pending migrations at open (false: open as it is; `earshot migrate` applies them later).
        public var migrate = true
        /// Where open/migration events are logged.
        public var logger = Logger(label: "store")

        public init(url: String, password: String? = nil, schema: [SchemaComponent] = StoreSchema.components) {
            self.url = url
            self.password = password
            self.schema = schema
        }

        var parameters: ConnectionParameters {
            ConnectionParameters(
                url: url, password: password, connectTimeoutSeconds: max(Int(connectTimeout.components.seconds), 1),
                applicationName: "earshot")
        }
    }

    /// A fixed key of `pg_advisory_lock`: held while one process applies migrations.
    static let migrationLockKey: Int64 = 0x6561_7273_686f_74  // "earshot"
    /// The oldest server accepted: 13 (trusted `pg_trgm`, `GENERATED … AS IDENTITY`, `SKIP LOCKED`).
    static let minimumServerVersion = 130_000

    public let configuration: Configuration
    public var dialect: SQLDialect { .postgresql }
    private let pool: ConnectionPool
    private let closed = Atomic<Bool>(false)

    /// Connects, checks the server, applies (or checks) the schema.
    ///
    /// - Throws: ``StoreError`` `.unavailable` when the server cannot be reached or refuses the credentials (the
    ///   message names the server without the password), `.unsupported` for a server older than 13, and the
    ///   migration errors of ``MetadataStore/migrate(_:)``.
    public init(configuration: Configuration) async throws {
        self.configuration = configuration
        let parameters = configuration.parameters
        let first = try await PostgresWorker.open(parameters, label: "earshot.store.postgres.0")
        let version = try await first.run { $0.serverVersion }
        guard version >= Self.minimumServerVersion else {
            await first.close()
            throw StoreError(
                .unsupported,
                "PostgreSQL at \(parameters.displayName) is version \(version / 10000): Earshot needs 13 or later")
        }
        pool = ConnectionPool(parameters: parameters, capacity: configuration.maximumConnections, first: first)
        do {
            let applied = try await migrateExclusively(configuration.schema, apply: configuration.migrate)
            configuration.logger.info(
                "metadata store open",
                metadata: [
                    "backend": "postgresql", "server_version": "\(version)", "url": parameters.displayName,
                    "schema_components": "\(configuration.schema.count)", "migrations_applied": "\(applied.count)",
                ])
        } catch {
            await close()
            throw error
        }
    }

    /// Applies `schema` while holding the migration lock on a connection of its own (other processes wait).
    public func migrateExclusively(_ schema: [SchemaComponent]) async throws -> [Migration] {
        try await migrateExclusively(schema, apply: true)
    }

    private func migrateExclusively(_ schema: [SchemaComponent], apply: Bool) async throws -> [Migration] {
        guard apply else { return [] }
        let lock = try await PostgresWorker.open(configuration.parameters, label: "earshot.store.postgres.migrate")
        let key = Self.migrationLockKey
        do {
            // Closing the lock's connection releases the lock, whatever happens below.
            _ = try await lock.run { try $0.execute("SELECT pg_advisory_lock(?)", [.integer(key)]) }
            let applied = try await migrate(schema)
            await lock.close()
            return applied
        } catch {
            await lock.close()
            throw error
        }
    }

    /// Convenience for ``init(configuration:)`` with a URL and default settings.
    public convenience init(url: String) async throws {
        try await self.init(configuration: Configuration(url: url))
    }

    // MARK: MetadataStore

    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) throws -> T) async throws -> T {
        try ensureOpen()
        return try await pool.withConnection { worker in
            try await worker.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", retries: 0, body)
        }
    }

    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) throws -> T) async throws -> T {
        try await write(.serializable, body)
    }

    @discardableResult
    public func write<T: Sendable>(
        _ isolation: WriteIsolation, _ body: @escaping @Sendable (any SQLDatabase) throws -> T
    ) async throws -> T {
        try ensureOpen()
        let retries = configuration.serializationRetries
        return try await pool.withConnection { worker in
            switch isolation {
            case .serializable:
                try await worker.transaction("BEGIN ISOLATION LEVEL SERIALIZABLE", retries: retries, body)
            case .statement:
                try await worker.transaction("BEGIN ISOLATION LEVEL READ COMMITTED", retries: 0, body)
            }
        }
    }

    public func ping() async throws {
        _ = try await read { db in try db.scalar("SELECT 1", as: Int.self) }
    }

    public func close() async {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for worker in await pool.drain() { await worker.close() }
    }

    public func notifications(on channel: String) -> AsyncStream<String> {
        PostgresListener.stream(channel: channel, parameters: configuration.parameters, logger: configuration.logger)
    }

    private func ensureOpen() throws(StoreError) {
        if closed.load(ordering: .acquiring) { throw StoreError(.closed, "the metadata store is closed") }
    }
}
