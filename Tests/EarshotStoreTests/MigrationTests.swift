import EarshotStore
import Foundation
import Testing

@Suite struct MigrationTests {
    static let v1 = Migration(
        version: 1, name: "recordings",
        sql: """
            CREATE TABLE recordings (id TEXT PRIMARY KEY, title TEXT NOT NULL);
            CREATE INDEX recordings_title ON recordings (title);
            """)
    static let v2 = Migration(
        version: 2, name: "recording_duration",
        sql: """
            ALTER TABLE recordings ADD COLUMN duration_ms INTEGER NOT NULL DEFAULT 0;
            CREATE TABLE segments (
                recording_id TEXT NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
                start_ms INTEGER NOT NULL, text TEXT NOT NULL
            );
            """)

    @Test func anEmptyDatabaseGetsTheStoresComponents() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url)
        let applied = try await store.appliedMigrations()
        #expect(applied.map(\.component).sorted() == ["queue", "queue", "queue", "store"])
        #expect(applied.map(\.name).sorted() == ["jobs", "lease_tokens", "lost_leases_and_partitions", "settings"])
        #expect(
            applied.first { $0.component == "store" }?.checksum
                == StoreSchema.settings.migrations[0].checksum(for: .sqlite))
        #expect(try await store.migrate(StoreSchema.components).isEmpty)  // re-running is a no-op
        await store.close()
    }

    @Test func anOldDatabaseFileIsUpgradedAndKeepsItsRows() async throws {
        let dir = try TemporaryDirectory()
        // An older binary created the file at version 1 and stored data.
        let old = try await openSQLite(in: dir.url, migrations: [Self.v1])
        try await old.write { db in
            for index in 0..<50 {
                try db.execute("INSERT INTO recordings (id, title) VALUES (?, ?)", "rec_\(index)", "title \(index)")
            }
        }
        await old.close()

        let new = try await openSQLite(in: dir.url, migrations: [Self.v1, Self.v2])
        #expect(try await new.version() == 2)
        #expect(try await new.appliedMigrations().map(\.name) == ["recordings", "recording_duration"])
        let (count, duration) = try await new.read { db in
            (
                try db.scalar("SELECT count(*) FROM recordings", as: Int.self),
                try db.scalar("SELECT duration_ms FROM recordings WHERE id = 'rec_7'", as: Int.self)
            )
        }
        #expect(count == 50)
        #expect(duration == 0)
        try await new.write { db in
            try db.execute("INSERT INTO segments (recording_id, start_ms, text) VALUES ('rec_7', 0, 'hello')")
        }
        await new.close()
    }

    @Test func aDatabaseFromANewerBinaryIsRefusedNamingBothVersions() async throws {
        let dir = try TemporaryDirectory()
        let newer = try await openSQLite(in: dir.url, migrations: [Self.v1, Self.v2])
        await newer.close()
        let error = await storeErrorCode { try await openSQLite(in: dir.url, migrations: [Self.v1]) }
        #expect(error?.code == .schemaTooNew)
        #expect(error?.message.contains("at version 2") == true)
        #expect(error?.message.contains("versions up to 1") == true)
    }

    @Test func aFailingMigrationRollsBackAndIsNamed() async throws {
        let dir = try TemporaryDirectory()
        let broken = Migration(
            version: 2, name: "broken_step",
            sql: """
                CREATE TABLE half_done (id INTEGER);
                INSERT INTO no_such_table VALUES (1);
                """)
        let error = await storeErrorCode { try await openSQLite(in: dir.url, migrations: [Self.v1, broken]) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("migration 2 \"broken_step\"") == true)
        #expect(error?.message.contains("no_such_table") == true)

        // Version 1 stayed applied; nothing of version 2 remains; a fixed binary continues from there.
        let store = try await openSQLite(in: dir.url, migrations: [Self.v1])
        #expect(try await store.version() == 1)
        let leftovers = try await store.read { db in
            try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'", as: Int.self)
        }
        #expect(leftovers == 0)
        await store.close()
        let fixed = try await openSQLite(in: dir.url, migrations: [Self.v1, Self.v2])
        #expect(try await fixed.version() == 2)
        await fixed.close()
    }

    @Test func anEditedAppliedMigrationIsDetected() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, migrations: [Self.v1])
        await store.close()
        let edited = Migration(
            version: 1, name: "recordings", sql: "CREATE TABLE recordings (id TEXT PRIMARY KEY, title TEXT);")
        let error = await storeErrorCode { try await openSQLite(in: dir.url, migrations: [edited]) }
        #expect(error?.code == .migrationModified)
        #expect(error?.message.contains("migration 1 \"recordings\"") == true)

        let renamed = Migration(version: 1, name: "renamed", sql: Self.v1.script(for: .sqlite)!)
        #expect(
            await storeErrorCode { try await openSQLite(in: dir.url, migrations: [renamed]) }?.code
                == .migrationModified)
    }

    @Test func aMigrationInsertedBelowAnAppliedOneIsRefused() async throws {
        let dir = try TemporaryDirectory()
        let v3 = Migration(version: 3, name: "three", sql: "CREATE TABLE three (id INTEGER);")
        let store = try await openSQLite(in: dir.url, migrations: [Self.v1, v3])
        await store.close()
        let error = await storeErrorCode { try await openSQLite(in: dir.url, migrations: [Self.v1, Self.v2, v3]) }
        #expect(error?.code == .migrationModified)
        #expect(error?.message.contains("migration 2") == true)
    }

    @Test func aMalformedMigrationListIsAProgrammingError() async throws {
        let dir = try TemporaryDirectory()
        let error = await storeErrorCode { try await openSQLite(in: dir.url, migrations: [Self.v2, Self.v1]) }
        #expect(error?.code == .invalidArgument)
        let postgresOnly = Migration(version: 1, name: "pg", scripts: [.postgresql: "CREATE TABLE t (id BIGSERIAL)"])
        #expect(
            await storeErrorCode { try await openSQLite(in: dir.url, migrations: [postgresOnly]) }?.code
                == .invalidArgument)
    }

    @Test func perDialectScriptsPickTheirOwnSQL() async throws {
        let dir = try TemporaryDirectory()
        let migration = Migration(
            version: 1, name: "search",
            scripts: [
                .sqlite: "CREATE VIRTUAL TABLE search USING fts5(body, tokenize = 'trigram');",
                .postgresql: "CREATE TABLE search (body TEXT, document TSVECTOR);",
            ])
        let store = try await openSQLite(in: dir.url, migrations: [migration])
        let kind = try await store.read { db in
            try db.scalar("SELECT sql FROM sqlite_master WHERE name = 'search'", as: String.self)
        }
        #expect(kind?.contains("fts5") == true)
        await store.close()
    }
}
