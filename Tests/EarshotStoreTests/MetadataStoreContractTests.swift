import EarshotTestSupport
import Foundation
import Synchronization
import Testing

@testable import EarshotStore

/// What domain code relies on from any metadata store, checked on SQLite and PostgreSQL alike: values round-trip
/// with their types, a failed write leaves nothing behind, constraint violations are conflicts, concurrent
/// read-modify-write transactions do not lose updates, reads see one snapshot, and portable SQL (`?` inside
/// literals, `? IS NULL`, integers as booleans, `RETURNING`, `ON CONFLICT`) means the same on both.
@Suite struct MetadataStoreContractTests {
    static let schema = StoreSchema.components + [
        SchemaComponent(
            "contract",
            [
                Migration(
                    version: 1, name: "things",
                    sql: """
                        CREATE TABLE things (
                            id TEXT PRIMARY KEY, n INTEGER NOT NULL, at INTEGER, ratio REAL, data BLOB, note TEXT
                        );
                        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
                        """,
                    postgresql: """
                        CREATE TABLE things (
                            id TEXT PRIMARY KEY, n INTEGER NOT NULL, at BIGINT, ratio DOUBLE PRECISION, data BYTEA,
                            note TEXT
                        );
                        CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
                        """)
            ]),
    ]

    func withStore(_ backend: MetadataBackend, _ body: (any MetadataStore) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory.url, schema: Self.schema)
        do {
            try await body(store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test(arguments: MetadataBackend.available)
    func valuesRoundTripWithTheirTypes(backend: MetadataBackend) async throws {
        try await withStore(backend) { store in
            let bytes: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 0x5C, 0x78]
            try await store.write { db in
                try db.execute(
                    "INSERT INTO things (id, n, at, ratio, data, note) VALUES (?, ?, ?, ?, ?, ?)", "a", 7,
                    Int64(1_767_225_600_123), 0.25, bytes, "it's 'quoted' ? not a placeholder — 会议")
                try db.execute("INSERT INTO things (id, n) VALUES (?, ?)", "b", -1)
            }
            let row = try #require(try await store.read { db in try db.queryFirst("SELECT * FROM things WHERE id = 'a'") })
            #expect(try row.decode("n", as: Int.self) == 7)
            #expect(try row.decode("at", as: Int64.self) == 1_767_225_600_123)
            #expect(try row.decode("ratio", as: Double.self) == 0.25)
            #expect(try row.decode("data", as: [UInt8].self) == bytes)
            #expect(try row.decode("note", as: String.self) == "it's 'quoted' ? not a placeholder — 会议")
            let nulls = try await store.read { db in try db.queryFirst("SELECT at, data FROM things WHERE id = 'b'") }
            #expect(nulls?["at"]?.isNull == true && nulls?["data"]?.isNull == true)
            // `? IS NULL` with an untyped parameter, integers as booleans, a count.
            let filtered = try await store.read { db in
                try db.scalar(
                    "SELECT count(*) FROM things WHERE (? IS NULL OR n = ?) AND (CASE WHEN ? = 1 THEN n > 0 ELSE 1 = 1 END)",
                    SQLValue.null, SQLValue.null, true, as: Int.self)
            }
            #expect(filtered == 1)
            let flag = try await store.read { db in try db.scalar("SELECT n > 0 AS positive FROM things WHERE id = 'a'", as: Bool.self) }
            #expect(flag == true)
        }
    }

    @Test(arguments: MetadataBackend.available)
    func aFailedWriteLeavesNothingAndConstraintsAreConflicts(backend: MetadataBackend) async throws {
        try await withStore(backend) { store in
            try await store.write { db in try db.execute("INSERT INTO things (id, n) VALUES ('a', 1)") }
            struct Abort: Error {}
            await #expect(throws: Abort.self) {
                try await store.write { db in
                    try db.execute("INSERT INTO things (id, n) VALUES ('b', 2)")
                    throw Abort()
                }
            }
            let error = await storeErrorCode {
                try await store.write { db in try db.execute("INSERT INTO things (id, n) VALUES ('a', 3)") }
            }
            #expect(error?.code == .conflict)
            let upserted = try await store.write { db in
                try db.scalar(
                    "INSERT INTO things (id, n) VALUES ('a', 5) ON CONFLICT (id) DO UPDATE SET n = excluded.n "
                        + "RETURNING n", as: Int.self)
            }
            #expect(upserted == 5)
            #expect(try await store.read { db in try db.scalar("SELECT count(*) FROM things", as: Int.self) } == 1)
            // The store is still usable after the failures.
            try await store.ping()
        }
    }

    @Test(arguments: MetadataBackend.available)
    func concurrentReadModifyWriteLosesNoUpdate(backend: MetadataBackend) async throws {
        try await withStore(backend) { store in
            try await store.write { db in try db.execute("INSERT INTO counters (name, value) VALUES ('c', 0)") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        for _ in 0..<10 {
                            try await store.write { db in
                                // Read, then write what was read plus one: serialisable writers never lose one.
                                let value = try db.scalar("SELECT value FROM counters WHERE name = 'c'", as: Int.self)!
                                try db.execute("UPDATE counters SET value = ? WHERE name = 'c'", value + 1)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let value = try await store.read { db in try db.scalar("SELECT value FROM counters", as: Int.self) }
            #expect(value == 80)
        }
    }

    @Test(arguments: MetadataBackend.available)
    func aReadSeesOneSnapshot(backend: MetadataBackend) async throws {
        try await withStore(backend) { store in
            try await store.write { db in try db.execute("INSERT INTO counters (name, value) VALUES ('c', 1)") }
            let seen = Mutex<[Int]>([])
            let inside = Mutex<Bool>(false)
            async let reader: Void = store.read { db in
                seen.withLock { $0.append(try! db.scalar("SELECT value FROM counters", as: Int.self)!) }
                inside.withLock { $0 = true }
                Thread.sleep(forTimeInterval: 0.3)
                seen.withLock { $0.append(try! db.scalar("SELECT value FROM counters", as: Int.self)!) }
            }
            while !inside.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            try await store.write { db in try db.execute("UPDATE counters SET value = 2") }
            try await reader
            #expect(seen.withLock { $0 } == [1, 1])
            #expect(try await store.read { db in try db.scalar("SELECT value FROM counters", as: Int.self) } == 2)
        }
    }
}
