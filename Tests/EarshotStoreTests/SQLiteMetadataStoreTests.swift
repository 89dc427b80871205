import EarshotStore
import Foundation
import Synchronization
import Testing

@Suite struct SQLiteMetadataStoreTests {
    static let notes = Migration(
        version: 1, name: "notes",
        sql: """
            CREATE TABLE notes (id TEXT PRIMARY KEY, title TEXT NOT NULL);
            CREATE TABLE tags (note_id TEXT NOT NULL REFERENCES notes(id) ON DELETE CASCADE, tag TEXT NOT NULL);
            """)

    @Test func walForeignKeysAndBusyTimeoutAreOnForWriterAndReaders() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, busyTimeout: .milliseconds(1234))
        let writer = try await store.write { db in
            try [
                db.scalar("PRAGMA journal_mode", as: String.self),
                db.scalar("PRAGMA foreign_keys", as: Int.self).map(String.init),
                db.scalar("PRAGMA busy_timeout", as: Int.self).map(String.init),
                db.scalar("PRAGMA synchronous", as: Int.self).map(String.init),
            ]
        }
        #expect(writer == ["wal", "1", "1234", "1"])  // synchronous 1 = NORMAL
        let reader = try await store.read { db in
            try [
                db.scalar("PRAGMA foreign_keys", as: Int.self), db.scalar("PRAGMA busy_timeout", as: Int.self),
                db.scalar("PRAGMA query_only", as: Int.self),
            ]
        }
        #expect(reader == [1, 1234, 1])
        await store.close()
    }

    @Test func foreignKeysAreEnforcedAsConflicts() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, migrations: [Self.notes])
        let error = await storeErrorCode {
            try await store.write { db in
                try db.execute("INSERT INTO tags (note_id, tag) VALUES (?, ?)", "missing", "x")
            }
        }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("FOREIGN KEY") == true)
        await store.close()
    }

    @Test func writeRollsBackWhenTheClosureThrows() async throws {
        struct Abort: Error {}
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, migrations: [Self.notes])
        await #expect(throws: Abort.self) {
            try await store.write { db in
                try db.execute("INSERT INTO notes (id, title) VALUES (?, ?)", "n1", "kept?")
                throw Abort()
            }
        }
        let count = try await store.read { db in try db.scalar("SELECT count(*) FROM notes", as: Int.self) }
        #expect(count == 0)
        // The writer is usable again after the rollback.
        let changed = try await store.write { db in try db.execute("INSERT INTO notes (id, title) VALUES ('n1', 't')") }
        #expect(changed == 1)
        await store.close()
    }

    @Test func uniqueViolationIsAConflictAndRowsDecodeByName() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, migrations: [Self.notes])
        try await store.write { db in try db.execute("INSERT INTO notes (id, title) VALUES (?, ?)", "n1", "") }
        let error = await storeErrorCode {
            try await store.write { db in try db.execute("INSERT INTO notes (id, title) VALUES (?, ?)", "n1", "again") }
        }
        #expect(error?.code == .conflict)
        let row = try await store.read { db in try db.queryFirst("SELECT id, title, NULL AS empty FROM notes") }
        #expect(try row?.decode("id", as: String.self) == "n1")
        #expect(try row?.decode("title", as: String.self) == "")  // an empty string is not NULL
        #expect(try row?.decode("empty", as: String?.self) == nil)
        #expect(throws: StoreError.self) { try row?.decode("empty", as: String.self) }
        #expect(throws: StoreError.self) { try row?.decode("absent", as: String.self) }
        await store.close()
    }

    @Test func readersRunWhileAWriteTransactionIsOpenAndSeeTheLastCommit() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, migrations: [Self.notes])
        try await store.write { db in try db.execute("INSERT INTO notes (id, title) VALUES ('n0', 'first')") }
        let writerInside = Atomic<Bool>(false)
        let release = Atomic<Bool>(false)
        async let slowWrite: Void = store.write { db in
            try db.execute("INSERT INTO notes (id, title) VALUES ('n1', 'second')")
            writerInside.store(true, ordering: .sequentiallyConsistent)
            while !release.load(ordering: .sequentiallyConsistent) { usleep(1000) }
        }
        while !writerInside.load(ordering: .sequentiallyConsistent) { try await Task.sleep(for: .milliseconds(1)) }
        // Eight reads over four reader connections, all while the write transaction is still open.
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await store.read { db in try db.scalar("SELECT count(*) FROM notes", as: Int.self) ?? -1 }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 1, count: 8))
        release.store(true, ordering: .sequentiallyConsistent)
        try await slowWrite
        #expect(try await store.read { db in try db.scalar("SELECT count(*) FROM notes", as: Int.self) } == 2)
        await store.close()
    }

    @Test func aSecondProcessWaitsForTheWriteLockUpToTheBusyTimeout() async throws {
        let dir = try TemporaryDirectory()
        let first = try await openSQLite(in: dir.url, migrations: [Self.notes])
        let patient = try await openSQLite(in: dir.url, migrations: [Self.notes], busyTimeout: .seconds(10))
        let impatient = try await openSQLite(in: dir.url, migrations: [Self.notes], busyTimeout: .milliseconds(50))
        let holding = Atomic<Bool>(false)
        let release = Atomic<Bool>(false)
        // The lock is held until the test lets go (not for a fixed time, which a stalled test process could outlast).
        async let hold: Void = first.write { db in
            try db.execute("INSERT INTO notes (id, title) VALUES ('a', 'a')")
            holding.store(true, ordering: .sequentiallyConsistent)
            while !release.load(ordering: .sequentiallyConsistent) { usleep(1_000) }
        }
        while !holding.load(ordering: .sequentiallyConsistent) { try await Task.sleep(for: .milliseconds(1)) }
        let error = await storeErrorCode {
            try await impatient.write { db in try db.execute("INSERT INTO notes (id, title) VALUES ('b', 'b')") }
        }
        #expect(error?.code == .unavailable)
        async let waiting: Void = patient.write { db in
            try db.execute("INSERT INTO notes (id, title) VALUES ('c', 'c')")
        }
        try await Task.sleep(for: .milliseconds(300))
        release.store(true, ordering: .sequentiallyConsistent)
        try await waiting
        try await hold
        let ids = try await first.read { db in
            try db.query("SELECT id FROM notes ORDER BY id").map { try $0.decode(0, as: String.self) }
        }
        #expect(ids == ["a", "c"])
        for store in [first, patient, impatient] { await store.close() }
    }

    @Test func fullTextSearchWithTrigramsFindsEnglishAndChinese() async throws {
        let dir = try TemporaryDirectory()
        let search = Migration(
            version: 1, name: "search",
            sql: "CREATE VIRTUAL TABLE search USING fts5(title, body, tokenize = 'trigram');")
        let store = try await openSQLite(in: dir.url, migrations: [search])
        try await store.write { db in
            try db.execute("INSERT INTO search (rowid, title, body) VALUES (1, 'Meeting notes', 'We ship on Friday')")
            try db.execute("INSERT INTO search (rowid, title, body) VALUES (2, '购物', '我有3个iPhone')")
            try db.execute("INSERT INTO search (rowid, title, body) VALUES (3, '会议', '明天下午开会')")
        }
        func find(_ text: String) async throws -> [Int] {
            try await store.read { db in
                try db.query("SELECT rowid FROM search WHERE search MATCH ? ORDER BY rowid", "\"\(text)\"").map {
                    try $0.decode(0, as: Int.self)
                }
            }
        }
        #expect(try await find("iPhone") == [2])
        #expect(try await find("3个i") == [2])
        #expect(try await find("下午开") == [3])
        #expect(try await find("friday") == [1])  // trigram is case-insensitive by default
        await store.close()
    }

    @Test func inMemoryStoreMigratesAndServesReadsThroughTheWriter() async throws {
        let store = try await SQLiteMetadataStore(configuration: .init(location: .inMemory))
        try await store.ping()
        try await store.write { db in
            try db.execute(
                "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)", "k", "v", "2025-01-01T00:00:00Z")
        }
        #expect(
            try await store.read { db in try db.scalar("SELECT value FROM settings WHERE key = 'k'", as: String.self) }
                == "v")
        await store.close()
    }

    @Test func aClosedStoreRefusesWork() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url)
        await store.close()
        let error = await storeErrorCode { try await store.ping() }
        #expect(error?.code == .closed)
        await store.close()  // idempotent
    }

    @Test func databaseFilesAreOwnerOnly() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url.appendingPathComponent("nested"))
        try await store.ping()
        for name in ["database.sqlite", "database.sqlite-wal"] {
            let path = dir.url.appendingPathComponent("nested/\(name)").path
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name)")
        }
        await store.close()
    }
}
