internal import EarshotCrypto

/// One versioned change of a ``SchemaComponent``'s tables, applied once per database in its own transaction.
///
/// Versions are positive and strictly increasing within a component. Once a migration has shipped, never edit
/// it: stores record a checksum of what they applied and refuse to open when it changes
/// (``StoreError/Code-swift.struct/migrationModified``). Add a new migration instead.
///
/// A migration is SQL (one portable script, or one per dialect), optionally followed by a code step that moves
/// data SQL alone cannot (``init(version:name:sql:revision:body:)``); both run in the same transaction.
public struct Migration: Sendable, Hashable, CustomStringConvertible {
    /// The version this migration brings its component to.
    public let version: Int
    /// A short snake_case name, recorded with the version.
    public let name: String
    /// The SQL script per dialect; a portable script applies to every dialect without its own entry.
    public let scripts: [SQLDialect: String]
    /// The global migration that made this change before Earshot's schema was split into components (see
    /// ``Legacy``), so a database created then is recognised instead of migrated again.
    public let legacy: Legacy?
    private let portable: String?
    private let step: CodeStep?

    /// A migration of Earshot's single global list (versions 1-7, before components): its version, name and the
    /// checksum it recorded. Several component migrations may name the same legacy migration when it created the
    /// tables of several components.
    public struct Legacy: Sendable, Hashable {
        public let version: Int
        public let name: String
        public let checksum: String

        public init(version: Int, name: String, checksum: String) {
            self.version = version
            self.name = name
            self.checksum = checksum
        }
    }

    /// Code run after the script; `revision` is part of the checksum (change it only with a new migration).
    private struct CodeStep: Sendable, Hashable {
        let revision: String
        let body: @Sendable (any SQLDatabase) throws -> Void

        static func == (lhs: CodeStep, rhs: CodeStep) -> Bool { lhs.revision == rhs.revision }
        func hash(into hasher: inout Hasher) { hasher.combine(revision) }
    }

    /// A migration whose SQL runs unchanged on every backend, or, when `postgresql` is given, `sql` everywhere but
    /// PostgreSQL, which runs `postgresql` (for column types SQLite does not distinguish: `BIGINT` milliseconds,
    /// `BYTEA`, `DOUBLE PRECISION`). Adding a `postgresql` script to a shipped migration leaves its checksum on
    /// SQLite unchanged.
    public init(version: Int, name: String, sql: String, postgresql: String? = nil, legacy: Legacy? = nil) {
        self.init(
            version: version, name: name, scripts: postgresql.map { [.postgresql: $0] } ?? [:], portable: sql,
            legacy: legacy, step: nil)
    }

    /// A migration with one script per dialect (for example FTS5 virtual tables on SQLite, `tsvector` on
    /// PostgreSQL). A backend whose dialect is missing fails the migration with a clear error.
    public init(version: Int, name: String, scripts: [SQLDialect: String], legacy: Legacy? = nil) {
        self.init(version: version, name: name, scripts: scripts, portable: nil, legacy: legacy, step: nil)
    }

    /// A migration that runs portable `sql` (may be empty) and then `body` in the same transaction, for data
    /// moves SQL cannot express. `body` must only use portable SQL through the connection it is given.
    public init(
        version: Int, name: String, sql: String = "", postgresql: String? = nil, revision: String,
        body: @escaping @Sendable (any SQLDatabase) throws -> Void
    ) {
        self.init(
            version: version, name: name, scripts: postgresql.map { [.postgresql: $0] } ?? [:], portable: sql,
            legacy: nil, step: CodeStep(revision: revision, body: body))
    }

    private init(
        version: Int, name: String, scripts: [SQLDialect: String], portable: String?, legacy: Legacy?,
        step: CodeStep?
    ) {
        self.version = version
        self.name = name
        self.scripts = scripts
        self.portable = portable
        self.legacy = legacy
        self.step = step
    }

    /// The script to run on `dialect`, or nil when this migration has none for it.
    public func script(for dialect: SQLDialect) -> String? {
        scripts[dialect] ?? portable
    }

    /// SHA-256 (hex) of what runs on `dialect` (the script, and the code step's revision), recorded when applied
    /// and compared on every open.
    public func checksum(for dialect: SQLDialect) -> String? {
        guard let script = script(for: dialect) else { return nil }
        let text = step.map { script + "\n-- code step, revision \($0.revision)" } ?? script
        return DigestAlgorithm.sha256.hash(Array(text.utf8)).hex
    }

    /// Runs the script and the code step on `db` (inside the caller's transaction).
    func apply(on db: any SQLDatabase) throws {
        if let script = script(for: db.dialect), !script.isEmpty { try db.executeScript(script) }
        try step?.body(db)
    }

    public var description: String { "migration \(version) \"\(name)\"" }
}

/// The tables one feature owns and the migrations that shape them, oldest first.
///
/// Each feature declares its own component next to its code (the job queue in `Queue/`, uploads in the server's
/// `Upload/`…); the server lists them in dependency order and the store applies them in that order, so a
/// component may reference tables of the components before it.
public struct SchemaComponent: Sendable, Hashable, CustomStringConvertible {
    /// The component's name, recorded with each applied migration (`queue`, `uploads`…).
    public let name: String
    public let migrations: [Migration]

    public init(_ name: String, _ migrations: [Migration]) {
        self.name = name
        self.migrations = migrations
    }

    public var description: String { "schema component \"\(name)\"" }
}

/// A migration recorded as applied.
public struct AppliedMigration: Sendable, Hashable {
    public let component: String
    public let version: Int
    public let name: String
    /// SHA-256 (hex) of what was applied.
    public let checksum: String
    /// When it was applied (UTC, ISO 8601 as stored).
    public let appliedAt: String
}
