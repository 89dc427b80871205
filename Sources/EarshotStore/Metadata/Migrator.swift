internal import Foundation

/// Applies a schema (components in order, each component's migrations in version order) to any
/// ``MetadataStore`` using only its `read`/`write` API.
///
/// Bookkeeping is portable SQL, shared by SQLite and PostgreSQL:
/// `schema_component_migrations(component, version, name, checksum, applied_at)`. A database made before the
/// schema was split into components has Earshot's old global list in `schema_migrations`; it is converted once
/// (each component migration that names a ``Migration/Legacy`` migration the database applied is recorded as
/// applied), and a marker row at version ``legacyMarkerVersion`` makes binaries from before the split refuse the
/// database as too new instead of migrating it again.
enum Migrator {
    static let bookkeeping = """
        CREATE TABLE IF NOT EXISTS schema_component_migrations (
            component  TEXT NOT NULL,
            version    INTEGER NOT NULL,
            name       TEXT NOT NULL,
            checksum   TEXT NOT NULL,
            applied_at TEXT NOT NULL,
            PRIMARY KEY (component, version)
        );
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version    INTEGER PRIMARY KEY,
            name       TEXT NOT NULL,
            checksum   TEXT NOT NULL,
            applied_at TEXT NOT NULL
        );
        """
    /// The version of the marker row in the legacy `schema_migrations` table.
    static let legacyMarkerVersion = 1000

    static func applied(in db: any SQLDatabase) throws -> [AppliedMigration] {
        try db.query(
            "SELECT component, version, name, checksum, applied_at FROM schema_component_migrations "
                + "ORDER BY component, version"
        ).map {
            try AppliedMigration(
                component: $0.decode("component"), version: $0.decode("version"), name: $0.decode("name"),
                checksum: $0.decode("checksum"), appliedAt: $0.decode("applied_at"))
        }
    }

    /// Checks `schema` for shape errors a developer must fix before anything runs.
    static func validate(_ schema: [SchemaComponent], dialect: SQLDialect) throws(StoreError) {
        var names = Set<String>()
        for component in schema {
            guard names.insert(component.name).inserted else {
                throw StoreError(.invalidArgument, "\(component) is listed twice")
            }
            var previous = 0
            for migration in component.migrations {
                guard migration.version > previous else {
                    throw StoreError(
                        .invalidArgument,
                        "\(component): \(migration) must have a version above \(previous): versions are positive "
                            + "and strictly increasing")
                }
                guard migration.script(for: dialect) != nil else {
                    throw StoreError(.invalidArgument, "\(component): \(migration) has no SQL for \(dialect)")
                }
                previous = migration.version
            }
        }
    }

    /// Compares the recorded migrations with `schema`; returns the ones still to apply, in order.
    static func pending(
        _ schema: [SchemaComponent], applied: [AppliedMigration], dialect: SQLDialect
    ) throws(StoreError) -> [(component: String, migration: Migration)] {
        let known = Set(schema.map(\.name))
        if let stranger = applied.first(where: { !known.contains($0.component) }) {
            throw StoreError(
                .schemaTooNew,
                "the database has tables of schema component \"\(stranger.component)\" (migration \(stranger.version) "
                    + "\"\(stranger.name)\") that this binary does not know: run a newer Earshot, or restore a backup "
                    + "made before the upgrade")
        }
        var todo: [(component: String, migration: Migration)] = []
        for component in schema {
            let records = applied.filter { $0.component == component.name }
            let byVersion = Dictionary(uniqueKeysWithValues: component.migrations.map { ($0.version, $0) })
            let newestKnown = component.migrations.last?.version ?? 0
            if let newest = records.last, newest.version > newestKnown {
                throw StoreError(
                    .schemaTooNew,
                    "the database's \(component) is at version \(newest.version) (\"\(newest.name)\") but this binary "
                        + "knows versions up to \(newestKnown): run a newer Earshot, or restore a backup made before "
                        + "the upgrade")
            }
            for record in records {
                guard let migration = byVersion[record.version] else {
                    throw StoreError(
                        .migrationModified,
                        "\(component): migration \(record.version) \"\(record.name)\" is applied in the database but "
                            + "missing from this binary: migrations must never be removed")
                }
                guard migration.name == record.name, migration.checksum(for: dialect) == record.checksum else {
                    throw StoreError(
                        .migrationModified,
                        "\(component): \(migration) differs from the one applied on \(record.appliedAt) "
                            + "(recorded name \"\(record.name)\", checksum \(record.checksum.prefix(12))…): an applied "
                            + "migration must not be edited; revert the edit and add a new migration instead")
                }
            }
            let done = Set(records.map(\.version))
            let missing = component.migrations.filter { !done.contains($0.version) }
            if let first = missing.first, let newest = records.last, first.version < newest.version {
                throw StoreError(
                    .migrationModified,
                    "\(component): \(first) is not applied but the newer migration \(newest.version) is: new "
                        + "migrations must take a version above every shipped one")
            }
            todo += missing.map { (component.name, $0) }
        }
        return todo
    }

    /// Records, for a database made before components, which component migrations its legacy list covers.
    static func convertLegacy(_ schema: [SchemaComponent], in db: any SQLDatabase) throws {
        let legacy = try db.query("SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version")
        let hasMarker = try legacy.contains { try $0.decode("version", as: Int.self) == legacyMarkerVersion }
        let alreadyConverted = try db.scalar("SELECT count(*) FROM schema_component_migrations", as: Int.self) ?? 0
        if !hasMarker && alreadyConverted == 0 && !legacy.isEmpty {
            var claims: [Int: [(String, Migration)]] = [:]
            for component in schema {
                for migration in component.migrations {
                    if let old = migration.legacy { claims[old.version, default: []].append((component.name, migration)) }
                }
            }
            for row in legacy {
                let version = try row.decode("version", as: Int.self)
                let name = try row.decode("name", as: String.self)
                let checksum = try row.decode("checksum", as: String.self)
                let appliedAt = try row.decode("applied_at", as: String.self)
                guard let claimants = claims[version] else {
                    throw StoreError(
                        .schemaTooNew,
                        "the database applied migration \(version) \"\(name)\" of Earshot's old global schema, which "
                            + "this binary does not know: run a newer Earshot")
                }
                for (component, migration) in claimants {
                    guard migration.legacy?.name == name, migration.legacy?.checksum == checksum else {
                        throw StoreError(
                            .migrationModified,
                            "the database's migration \(version) \"\(name)\" (checksum \(checksum.prefix(12))…) is "
                                + "not the one schema component \"\(component)\" takes over from: restore a backup "
                                + "made by a released Earshot")
                    }
                    try db.execute(
                        "INSERT INTO schema_component_migrations (component, version, name, checksum, applied_at) "
                            + "VALUES (?, ?, ?, ?, ?)",
                        component, migration.version, migration.name, migration.checksum(for: db.dialect) ?? "",
                        appliedAt)
                }
            }
        }
        if !hasMarker {
            try db.execute(
                "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                legacyMarkerVersion, "schema_components", "see schema_component_migrations", timestamp())
        }
    }

    static func run(_ schema: [SchemaComponent], on store: some MetadataStore) async throws -> [Migration] {
        let dialect = store.dialect
        try validate(schema, dialect: dialect)
        try await store.write { db in
            try db.executeScript(bookkeeping)
            try convertLegacy(schema, in: db)
        }
        let recorded = try await store.read { db in try applied(in: db) }
        var done: [Migration] = []
        for (component, migration) in try pending(schema, applied: recorded, dialect: dialect) {
            if try await apply(migration, of: component, on: store) { done.append(migration) }
        }
        return done
    }

    /// Applies one migration in its own write transaction; false when another process applied it first.
    private static func apply(_ migration: Migration, of component: String, on store: some MetadataStore)
        async throws -> Bool
    {
        do {
            return try await store.write { db in
                // Re-check inside the write lock: another process may have migrated since we looked.
                let already = try db.scalar(
                    "SELECT count(*) FROM schema_component_migrations WHERE component = ? AND version = ?", component,
                    migration.version, as: Int.self)
                guard already == 0 else { return false }
                try migration.apply(on: db)
                try db.execute(
                    "INSERT INTO schema_component_migrations (component, version, name, checksum, applied_at) "
                        + "VALUES (?, ?, ?, ?, ?)",
                    component, migration.version, migration.name, migration.checksum(for: db.dialect) ?? "",
                    timestamp())
                return true
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let reason = (error as? StoreError)?.message ?? "\(error)"
            throw StoreError(
                .migrationFailed, "schema component \"\(component)\": \(migration) failed and was rolled back: \(reason)",
                underlying: error)
        }
    }

    private static func timestamp() -> String {
        Date.now.formatted(.iso8601)
    }
}

extension MetadataStore {
    /// The migrations `schema` would add to this database, in order, without applying them (`earshot migrate
    /// --check`). Creates the bookkeeping tables when missing.
    ///
    /// - Throws: the errors of ``MetadataStore/migrate(_:)`` that do not need a migration to run.
    public func pendingMigrations(_ schema: [SchemaComponent]) async throws -> [Migration] {
        let dialect = self.dialect
        try Migrator.validate(schema, dialect: dialect)
        try await write { db in try db.executeScript(Migrator.bookkeeping) }
        let recorded = try await read { db in try Migrator.applied(in: db) }
        return try Migrator.pending(schema, applied: recorded, dialect: dialect).map(\.migration)
    }

    /// Applies what `schema` adds to this database (see ``MetadataStore/migrate(_:)``).
    @discardableResult
    public func migrate(_ schema: [SchemaComponent]) async throws -> [Migration] {
        try await Migrator.run(schema, on: self)
    }
}
