internal import CSQLite
public import EarshotCore
public import Foundation
internal import Synchronization

/// The embedded metadata store: one SQLite database file in WAL mode.
///
/// One writer connection serialises all writes (`BEGIN IMMEDIATE`, so a writer waits for the lock up front
/// instead of failing on upgrade); a small pool of reader connections serves reads in parallel, each read in
/// its own snapshot. Every connection has `foreign_keys=ON`, the configured busy timeout and a prepared-statement
/// cache. All SQLite calls run on the connections' own dispatch queues, off the Swift cooperative pool.
///
/// Opening checks the SQLite version and that FTS5 with the trigram tokenizer is available, then applies
/// ``Configuration/migrations``. See docs/storage.md for the settings and why.
public final class SQLiteMetadataStore: MetadataStore {
    /// Where the database lives and how connections behave.
    public struct Configuration: Sendable {
        /// A database file, or a private in-memory database (unit tests only).
        public struct Location: Sendable, CustomStringConvertible {
            fileprivate let path: String
            fileprivate let isMemory: Bool

            /// A database file; its directory is created (mode 0700) when missing, the file with mode 0600.
            public static func file(_ url: URL) -> Location { Location(path: url.path, isMemory: false) }
            /// A private in-memory database served by a single connection. Not durable: unit tests only.
            public static let inMemory = Location(path: ":memory:", isMemory: true)

            public var description: String { path }
        }

        public var location: Location
        /// How long a statement waits for a lock held by another connection or process before failing with
        /// ``StoreError/Code-swift.struct/unavailable``.
        public var busyTimeout: Duration = .seconds(5)
        /// Reader connections (file databases only; in-memory databases read through the writer).
        public var readerCount: Int = 4
        /// Prepared statements kept per connection.
        public var statementCacheCapacity: Int = 64
        /// The schema applied at open: components in dependency order (the server passes its own list).
        public var schema: [SchemaComponent] = StoreSchema.components
        /// Where open/migration events are logged.
        public var logger = Logger(label: "store")

        public init(location: Location, schema: [SchemaComponent] = StoreSchema.components) {
            self.location = location
            self.schema = schema
        }
    }

    /// The oldest SQLite accepted: 3.35 brings `RETURNING` and `DROP COLUMN` (3.34 the trigram tokenizer).
    static let minimumVersionNumber: Int32 = 3_035_000

    public let configuration: Configuration
    public var dialect: SQLDialect { .sqlite }
    private let writer: SQLiteWorker
    private let readers: ReaderPool?
    private let closed = Atomic<Bool>(false)

    /// Opens (creating when missing) the database, verifies the SQLite build, applies pending migrations.
    ///
    /// - Throws: ``StoreError`` `.unsupported` when SQLite is too old or lacks FTS5/trigram, `.io` when the
    ///   file cannot be opened, `.corrupted` for a file that is not a database, and the migration errors of
    ///   ``MetadataStore/migrate(_:)``.
    public init(configuration: Configuration) async throws {
        self.configuration = configuration
        let location = configuration.location
        if !location.isMemory { try Self.prepareFile(at: location.path) }
        let (writer, readers) = try await Self.openConnections(configuration)
        self.writer = writer
        self.readers = readers
        do {
            let applied = try await migrate(configuration.schema)
            configuration.logger.info(
                "metadata store open",
                metadata: [
                    "backend": "sqlite", "sqlite": String(cString: sqlite3_libversion()), "path": location.path,
                    "schema_components": "\(configuration.schema.count)", "migrations_applied": "\(applied.count)",
                ])
        } catch {
            await close()
            throw error
        }
    }

    /// Convenience for ``init(configuration:)`` with a database file and default settings.
    public convenience init(path: URL) async throws {
        try await self.init(configuration: Configuration(location: .file(path)))
    }

    private static func openConnections(_ configuration: Configuration) async throws -> (SQLiteWorker, ReaderPool?) {
        guard sqlite3_libversion_number() >= minimumVersionNumber else {
            throw StoreError(
                .unsupported,
                "SQLite \(String(cString: sqlite3_libversion())) is too old: Earshot needs 3.35 or later "
                    + "(Debian 12's libsqlite3-0 is 3.40)")
        }
        let location = configuration.location
        let open: @Sendable (Bool) throws -> SQLiteConnection = { readOnly in
            try SQLiteConnection(
                path: location.path, readOnly: readOnly, busyTimeout: configuration.busyTimeout,
                cacheCapacity: configuration.statementCacheCapacity)
        }
        let writer = SQLiteWorker(connection: try open(false), label: "earshot.store.sqlite.writer")
        try await writer.run { connection in
            if !location.isMemory {
                let mode = try connection.scalar("PRAGMA journal_mode = WAL", as: String.self)
                guard mode?.lowercased() == "wal" else {
                    throw StoreError(
                        .unsupported,
                        "cannot switch \(location.path) to WAL journal mode (got \(mode ?? "nothing")): "
                            + "the file system must support shared memory (not a network mount)")
                }
                // In WAL, NORMAL is durable against application crashes and consistent across power loss.
                try connection.executeScript("PRAGMA synchronous = NORMAL;")
            }
            try verifyFullTextSearch(connection)
        }
        guard !location.isMemory, configuration.readerCount > 0 else { return (writer, nil) }
        var workers: [SQLiteWorker] = []
        for index in 0..<configuration.readerCount {
            workers.append(SQLiteWorker(connection: try open(true), label: "earshot.store.sqlite.reader\(index)"))
        }
        return (writer, ReaderPool(workers))
    }

    /// Fails with `.unsupported` unless FTS5 and its trigram tokenizer (used for CJK-capable search) work.
    private static func verifyFullTextSearch(_ connection: SQLiteConnection) throws {
        do {
            try connection.executeScript(
                """
                CREATE VIRTUAL TABLE temp.earshot_fts5_probe USING fts5(body, tokenize = 'trigram');
                DROP TABLE temp.earshot_fts5_probe;
                """)
        } catch {
            throw StoreError(
                .unsupported,
                "SQLite \(String(cString: sqlite3_libversion())) lacks FTS5 with the trigram tokenizer, which "
                    + "search needs: use a build with SQLITE_ENABLE_FTS5, version 3.34 or later "
                    + "(Debian: libsqlite3-0)",
                underlying: error)
        }
    }

    /// Creates the parent directory (0700) and an empty database file (0600) so SQLite, whose -wal and -shm
    /// files copy the database file's mode, never creates world-readable files.
    private static func prepareFile(at path: String) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError(.io, "cannot create the database directory \(directory): \(error)", underlying: error)
        }
        let fd = Foundation.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw StoreError(.io, "cannot create the database file \(path): \(reason)")
        }
        Foundation.close(fd)
    }

    // MARK: MetadataStore

    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) throws -> T) async throws -> T {
        try ensureOpen()
        guard let readers else { return try await writer.transaction("BEGIN DEFERRED", body) }
        return try await readers.withReader { reader in try await reader.transaction("BEGIN DEFERRED", body) }
    }

    /// Borrows an idle reader without waiting and runs the transaction on the calling thread (through the
    /// reader's queue, so the connection is still used by one thread at a time); nil when every reader is busy or
    /// the database is in memory (its one connection is the writer's).
    public func readImmediately<T>(_ body: (any SQLDatabase) throws -> T) throws -> T? {
        try ensureOpen()
        guard let readers, let reader = readers.tryAcquire() else { return nil }
        defer { readers.release(reader) }
        return try reader.transactionNow("BEGIN DEFERRED", body)
    }

    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) throws -> T) async throws -> T {
        try ensureOpen()
        return try await writer.transaction("BEGIN IMMEDIATE", body)
    }

    public func ping() async throws {
        _ = try await read { db in try db.scalar("SELECT 1", as: Int.self) }
    }

    public func close() async {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let readers {
            for reader in await readers.drain() { await reader.close() }
        }
        await writer.close()
    }

    private func ensureOpen() throws(StoreError) {
        if closed.load(ordering: .acquiring) { throw StoreError(.closed, "the metadata store is closed") }
    }
}
