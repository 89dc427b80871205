/// Where Earshot keeps its metadata (partners, uploads, tasks, records…): a transactional SQL database.
///
/// Domain repositories are written against this protocol only, so the embedded SQLite backend
/// (``SQLiteMetadataStore``) and a PostgreSQL backend are interchangeable. Work is done in closures that get a
/// ``SQLDatabase`` connection:
///
/// ```swift
/// let count = try await store.read { db in try db.scalar("SELECT count(*) FROM settings", as: Int.self) }
/// try await store.write { db in
///     try db.execute("INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)", "k", "v", now)
/// }
/// ```
///
/// Closures run synchronously on a thread owned by the store (never the Swift cooperative pool) and must not
/// `await`; keep them short. All methods are safe to call from any task. Cancellation is checked before the
/// closure starts; a closure that has started runs to completion.
public protocol MetadataStore: Sendable {
    /// The SQL dialect connections of this store speak.
    var dialect: SQLDialect { get }

    /// Runs `body` in a read-only transaction: every query inside sees one consistent snapshot, and reads run in
    /// parallel with each other and with a writer.
    ///
    /// - Throws: ``StoreError`` (`.closed`, `.unavailable`, `.database`…), `CancellationError`, or what `body`
    ///   throws.
    @discardableResult
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) throws -> T) async throws -> T

    /// Runs `body` in a read-only transaction on the calling thread when the store can start it without waiting —
    /// an embedded database with an idle reader connection — and returns its result; nil (`body` not run) when it
    /// would have to wait or the backend always does (a remote database), so the caller falls back to
    /// ``read(_:)``. For synchronous hot paths (an inline HTTP attempt) whose reads are a few indexed look-ups.
    /// Default: nil.
    ///
    /// - Throws: what ``read(_:)`` throws, except `CancellationError`.
    func readImmediately<T>(_ body: (any SQLDatabase) throws -> T) throws -> T?

    /// Runs `body` in one read-write transaction, committed when `body` returns and rolled back when it throws.
    ///
    /// Writers are serialised. A constraint violation surfaces as ``StoreError/Code-swift.struct/conflict``.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) throws -> T) async throws -> T

    /// ``write(_:)`` with the isolation given (see ``WriteIsolation``); `write(.serializable, body)` is
    /// `write(body)`. Default: `write(body)`, for backends with a single writer.
    @discardableResult
    func write<T: Sendable>(_ isolation: WriteIsolation, _ body: @escaping @Sendable (any SQLDatabase) throws -> T)
        async throws -> T

    /// Checks that the database answers a trivial query (for readiness probes).
    func ping() async throws

    /// Applies what `schema` adds to this database: its components in order, each component's missing migrations
    /// in version order, each in its own transaction; returns the migrations applied. Stores run this once when
    /// they open; calling it again is harmless.
    ///
    /// - Throws: ``StoreError`` `.schemaTooNew` when the database was migrated by a newer binary (a component at a
    ///   higher version, or one this binary does not know), `.migrationModified` when an applied migration was
    ///   edited or removed, `.migrationFailed` (naming the component and migration, rolled back) when one fails.
    @discardableResult
    func migrate(_ schema: [SchemaComponent]) async throws -> [Migration]

    /// Closes every connection after in-flight work finishes. Idempotent; later calls throw
    /// ``StoreError/Code-swift.struct/closed``.
    func close() async
}

extension MetadataStore {
    public func readImmediately<T>(_ body: (any SQLDatabase) throws -> T) throws -> T? { nil }

    @discardableResult
    public func write<T: Sendable>(
        _ isolation: WriteIsolation, _ body: @escaping @Sendable (any SQLDatabase) throws -> T
    ) async throws -> T {
        try await write(body)
    }

    /// The migrations recorded as applied, by component and version.
    public func appliedMigrations() async throws -> [AppliedMigration] {
        try await read { db in try Migrator.applied(in: db) }
    }
}
