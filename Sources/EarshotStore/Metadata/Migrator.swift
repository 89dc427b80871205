internal import Foundation

/// Applies a migration list to any ``MetadataStore`` using only its `read`/`write` API.
///
/// The bookkeeping table is portable SQL, so SQLite and PostgreSQL share it:
/// `schema_migrations(version INTEGER PRIMARY KEY, name TEXT, checksum TEXT, applied_at TEXT)`.
enum Migrator {
    static let bookkeeping = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version    INTEGER PRIMARY KEY,
            name       TEXT NOT NULL,
            checksum   TEXT NOT NULL,
            applied_at TEXT NOT NULL
        );
        """

    static func applied(in db: any SQLDatabase) throws -> [AppliedMigration] {
        try db.query("SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version").map {
            try AppliedMigration(
                version: $0.decode("version"), name: $0.decode("name"), checksum: $0.decode("checksum"),
                appliedAt: $0.decode("applied_at"))
        }
    }

    /// Checks `migrations` for shape errors a developer must fix before anything runs.
    static func validate(_ migrations: [Migration], dialect: SQLDialect) throws(StoreError) {
        var previous = 0
        for migration in migrations {
            guard migration.version > previous else {
                throw StoreError(
                    .invalidArgument,
                    "\(migration) must have a version above \(previous): versions are positive and strictly increasing")
            }
            guard migration.script(for: dialect) != nil else {
                throw StoreError(.invalidArgument, "\(migration) has no SQL for \(dialect)")
            }
            previous = migration.version
        }
    }

    /// Compares the recorded migrations with `migrations`; returns the ones still to apply.
    static func pending(
        _ migrations: [Migration], applied: [AppliedMigration], dialect: SQLDialect
    ) throws(StoreError) -> [Migration] {
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        let newestKnown = migrations.last?.version ?? 0
        if let newestApplied = applied.last, newestApplied.version > newestKnown {
            throw StoreError(
                .schemaTooNew,
                "the database is at schema version \(newestApplied.version) (\"\(newestApplied.name)\") but this "
                    + "binary knows versions up to \(newestKnown): run a newer Earshot, or restore a backup made "
                    + "before the upgrade")
        }
        for record in applied {
            guard let migration = known[record.version] else {
                throw StoreError(
                    .migrationModified,
                    "migration \(record.version) \"\(record.name)\" is applied in the database but missing from this "
                        + "binary's migration list: migrations must never be removed")
            }
            guard migration.name == record.name, migration.checksum(for: dialect) == record.checksum else {
                throw StoreError(
                    .migrationModified,
                    "\(migration) differs from the one applied on \(record.appliedAt) "
                        + "(recorded name \"\(record.name)\", checksum \(record.checksum.prefix(12))…): "
                        + "an applied migration must not be edited; revert the edit and add a new migration instead")
            }
        }
        let appliedVersions = Set(applied.map(\.version))
        let todo = migrations.filter { !appliedVersions.contains($0.version) }
        if let first = todo.first, let newestApplied = applied.last, first.version < newestApplied.version {
            throw StoreError(
                .migrationModified,
                "\(first) is not applied but the newer migration \(newestApplied.version) is: new migrations must "
                    + "take a version above every shipped one")
        }
        return todo
    }

    static func run(_ migrations: [Migration], on store: some MetadataStore) async throws -> [Migration] {
        let dialect = store.dialect
        try validate(migrations, dialect: dialect)
        try await store.write { db in try db.executeScript(bookkeeping) }
        let recorded = try await store.read { db in try applied(in: db) }
        let todo = try pending(migrations, applied: recorded, dialect: dialect)
        var done: [Migration] = []
        for migration in todo {
            let ran = try await apply(migration, on: store)
            if ran { done.append(migration) }
        }
        return done
    }

    /// Applies one migration in its own write transaction; false when another process applied it first.
    private static func apply(_ migration: Migration, on store: some MetadataStore) async throws -> Bool {
        let dialect = store.dialect
        do {
            return try await store.write { db in
                // Re-check inside the write lock: another process may have migrated since we looked.
                let already = try db.scalar(
                    "SELECT count(*) FROM schema_migrations WHERE version = ?", migration.version, as: Int.self)
                guard already == 0 else { return false }
                try db.executeScript(migration.script(for: dialect) ?? "")
                try db.execute(
                    "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                    migration.version, migration.name, migration.checksum(for: dialect) ?? "", timestamp())
                return true
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let reason = (error as? StoreError)?.message ?? "\(error)"
            throw StoreError(
                .migrationFailed, "\(migration) failed and was rolled back: \(reason)", underlying: error)
        }
    }

    private static func timestamp() -> String {
        Date.now.formatted(.iso8601)
    }
}

extension MetadataStore {
    @discardableResult
    public func migrate(_ migrations: [Migration]) async throws -> [Migration] {
        try await Migrator.run(migrations, on: self)
    }
}
