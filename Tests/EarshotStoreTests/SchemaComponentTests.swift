import EarshotCrypto
import EarshotStore
import Foundation
import Testing

/// Schema components: each feature's migrations applied in the listed order and tracked per component, code steps,
/// and the one-time takeover of a database made when Earshot had a single global migration list.
@Suite struct SchemaComponentTests {
    static let people = SchemaComponent(
        "people", [Migration(version: 1, name: "people", sql: "CREATE TABLE people (id TEXT PRIMARY KEY);")])
    static let notes = SchemaComponent(
        "notes",
        [
            Migration(
                version: 1, name: "notes",
                sql: "CREATE TABLE notes (id TEXT PRIMARY KEY, person TEXT NOT NULL REFERENCES people (id));")
        ])

    @Test func componentsApplyInOrderAndKeepTheirOwnVersions() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, schema: [Self.people, Self.notes])
        try await store.write { db in
            try db.execute("INSERT INTO people (id) VALUES ('p1')")
            try db.execute("INSERT INTO notes (id, person) VALUES ('n1', 'p1')")
        }
        await store.close()
        // A later binary adds a migration to one component only; the other is untouched.
        let notes2 = SchemaComponent(
            "notes",
            Self.notes.migrations + [
                Migration(version: 2, name: "note_text", sql: "ALTER TABLE notes ADD COLUMN text TEXT;")
            ])
        let upgraded = try await openSQLite(in: dir.url, schema: [Self.people, notes2])
        #expect(try await upgraded.version(of: "people") == 1)
        #expect(try await upgraded.version(of: "notes") == 2)
        #expect(try await upgraded.read { db in try db.scalar("SELECT count(*) FROM notes", as: Int.self) } == 1)
        await upgraded.close()
        // The older binary refuses the newer database, naming the component.
        let error = await storeErrorCode { try await openSQLite(in: dir.url, schema: [Self.people, Self.notes]) }
        #expect(error?.code == .schemaTooNew)
        #expect(error?.message.contains("\"notes\"") == true)
    }

    @Test func aDatabaseWithAComponentThisBinaryLacksIsTooNew() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, schema: [Self.people, Self.notes])
        await store.close()
        let error = await storeErrorCode { try await openSQLite(in: dir.url, schema: [Self.people]) }
        #expect(error?.code == .schemaTooNew)
        #expect(error?.message.contains("\"notes\"") == true)
    }

    @Test func aCodeStepRunsInTheMigrationsTransactionAndItsRevisionIsChecked() async throws {
        let dir = try TemporaryDirectory()
        let fill = Migration(
            version: 2, name: "fill", revision: "1",
            body: { db in
                for index in 0..<3 { try db.execute("INSERT INTO people (id) VALUES (?)", "p\(index)") }
            })
        let people = SchemaComponent("people", Self.people.migrations + [fill])
        let store = try await openSQLite(in: dir.url, schema: [people])
        #expect(try await store.read { db in try db.scalar("SELECT count(*) FROM people", as: Int.self) } == 3)
        await store.close()
        let changed = Migration(version: 2, name: "fill", revision: "2", body: { _ in })
        let error = await storeErrorCode {
            try await openSQLite(in: dir.url, schema: [SchemaComponent("people", Self.people.migrations + [changed])])
        }
        #expect(error?.code == .migrationModified)

        // A failing code step rolls back its script too.
        let other = try TemporaryDirectory()
        let failing = Migration(
            version: 2, name: "half", sql: "CREATE TABLE half (id INTEGER);", revision: "1",
            body: { _ in throw StoreError(.invalidArgument, "the data is not what the step expected") })
        let failure = await storeErrorCode {
            try await openSQLite(in: other.url, schema: [SchemaComponent("people", Self.people.migrations + [failing])])
        }
        #expect(failure?.code == .migrationFailed)
        #expect(failure?.message.contains("not what the step expected") == true)
        let reopened = try await openSQLite(in: other.url, schema: [Self.people])
        #expect(
            try await reopened.read { db in
                try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'half'", as: Int.self)
            } == 0)
        await reopened.close()
    }

    /// The SQL of a legacy global migration and the checksum it recorded.
    static let legacySQL = "CREATE TABLE people (id TEXT PRIMARY KEY);\nCREATE TABLE notes (id TEXT PRIMARY KEY);"
    static var legacyChecksum: String { DigestAlgorithm.sha256.hash(Array(legacySQL.utf8)).hex }

    /// Makes a database as a binary before schema components did: the global `schema_migrations` list.
    static func makeLegacyDatabase(in dir: URL, checksum: String) async throws {
        let store = try await openSQLite(in: dir, schema: [])
        try await store.write { db in
            try db.executeScript(legacySQL)
            try db.execute("DELETE FROM schema_migrations")
            try db.execute(
                "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (1, 'people_and_notes', ?, "
                    + "'2026-11-01T00:00:00Z')", checksum)
            try db.execute("DROP TABLE schema_component_migrations")
            try db.execute("INSERT INTO people (id) VALUES ('kept')")
        }
        await store.close()
    }

    static func takeover(checksum: String) -> [SchemaComponent] {
        let legacy = Migration.Legacy(version: 1, name: "people_and_notes", checksum: checksum)
        return [
            SchemaComponent(
                "people", [Migration(version: 1, name: "people", sql: "CREATE TABLE people (id TEXT PRIMARY KEY);", legacy: legacy)]),
            SchemaComponent(
                "notes",
                [
                    Migration(version: 1, name: "notes", sql: "CREATE TABLE notes (id TEXT PRIMARY KEY);", legacy: legacy),
                    Migration(version: 2, name: "note_text", sql: "ALTER TABLE notes ADD COLUMN text TEXT;"),
                ]),
        ]
    }

    @Test func aLegacyDatabaseIsTakenOverNotMigratedAgain() async throws {
        let dir = try TemporaryDirectory()
        try await Self.makeLegacyDatabase(in: dir.url, checksum: Self.legacyChecksum)
        let store = try await openSQLite(in: dir.url, schema: Self.takeover(checksum: Self.legacyChecksum))
        let applied = try await store.appliedMigrations()
        #expect(applied.map { "\($0.component)/\($0.version)" }.sorted() == ["notes/1", "notes/2", "people/1"])
        // The taken-over migrations keep the legacy date; the new one ran now.
        #expect(applied.first { $0.component == "people" }?.appliedAt == "2026-11-01T00:00:00Z")
        let (kept, marker) = try await store.read { db in
            (
                try db.scalar("SELECT id FROM people", as: String.self),
                try db.scalar("SELECT name FROM schema_migrations WHERE version = 1000", as: String.self)
            )
        }
        #expect(kept == "kept")
        // Binaries from before components see version 1000 and refuse the database as too new.
        #expect(marker == "schema_components")
        await store.close()
        // Opening again changes nothing.
        let again = try await openSQLite(in: dir.url, schema: Self.takeover(checksum: Self.legacyChecksum))
        #expect(try await again.appliedMigrations().count == 3)
        await again.close()
    }

    @Test func aLegacyDatabaseThatDiffersFromTheReleasedListIsRefused() async throws {
        let dir = try TemporaryDirectory()
        try await Self.makeLegacyDatabase(in: dir.url, checksum: String(repeating: "0", count: 64))
        let error = await storeErrorCode {
            try await openSQLite(in: dir.url, schema: Self.takeover(checksum: Self.legacyChecksum))
        }
        #expect(error?.code == .migrationModified)
        #expect(error?.message.contains("people_and_notes") == true)
    }
}
