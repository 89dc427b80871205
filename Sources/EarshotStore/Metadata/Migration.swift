internal import EarshotCrypto

/// One versioned schema change, applied once per database in its own transaction.
///
/// Versions are positive and strictly increasing in a migration list. Once a migration has shipped, never edit
/// it: stores record a checksum of the SQL they applied and refuse to open when it changes
/// (``StoreError/Code-swift.struct/migrationModified``). Add a new migration instead.
public struct Migration: Sendable, Hashable, CustomStringConvertible {
    /// The version this migration brings the schema to.
    public let version: Int
    /// A short snake_case name, recorded with the version.
    public let name: String
    /// The SQL script per dialect; ``portable`` applies to every dialect without its own entry.
    public let scripts: [SQLDialect: String]
    private let portable: String?

    /// A migration whose SQL runs unchanged on every backend.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.scripts = [:]
        self.portable = sql
    }

    /// A migration with one script per dialect (for example FTS5 virtual tables on SQLite, `tsvector` on
    /// PostgreSQL). A backend whose dialect is missing fails the migration with a clear error.
    public init(version: Int, name: String, scripts: [SQLDialect: String]) {
        self.version = version
        self.name = name
        self.scripts = scripts
        self.portable = nil
    }

    /// The script to run on `dialect`, or nil when this migration has none for it.
    public func script(for dialect: SQLDialect) -> String? {
        scripts[dialect] ?? portable
    }

    /// SHA-256 (hex) of the script for `dialect`, recorded when applied and compared on every open.
    public func checksum(for dialect: SQLDialect) -> String? {
        script(for: dialect).map { DigestAlgorithm.sha256.hash(Array($0.utf8)).hex }
    }

    public var description: String { "migration \(version) \"\(name)\"" }
}

/// A migration recorded in the `schema_migrations` table.
public struct AppliedMigration: Sendable, Hashable {
    public let version: Int
    public let name: String
    /// SHA-256 (hex) of the SQL that was applied.
    public let checksum: String
    /// When it was applied (UTC, ISO 8601 as stored).
    public let appliedAt: String
}
