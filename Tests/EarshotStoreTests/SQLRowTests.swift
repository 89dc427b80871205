import EarshotStore
import Testing

@Suite struct SQLRowTests {
    enum State: String, Decodable { case pending = "PENDING", success = "SUCCESS" }

    struct Task: Decodable, Equatable {
        let id: String
        let state: State
        let progress: Double
        let attempts: Int
        let done: Bool
        let note: String?
        let payload: [UInt8]?

        enum CodingKeys: String, CodingKey {
            case id, state, progress, attempts, done, note, payload = "payload_bytes"
        }
    }

    static let schema = Migration(
        version: 1, name: "tasks",
        sql: """
            CREATE TABLE tasks (
                id TEXT PRIMARY KEY, state TEXT NOT NULL, progress REAL NOT NULL, attempts INTEGER NOT NULL,
                done INTEGER NOT NULL, note TEXT, payload_bytes BLOB
            );
            """)

    @Test func rowsDecodeIntoStructsByColumnName() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, migrations: [Self.schema])
        try await store.write { db in
            try db.execute(
                "INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?)", "t1", "SUCCESS", 1.0, 2, true, "ok", [UInt8]([0, 1]))
            try db.execute("INSERT INTO tasks VALUES (?, ?, ?, ?, ?, NULL, NULL)", "t2", "PENDING", 0.5, 0, false)
        }
        let tasks = try await store.read { db in
            try db.query("SELECT * FROM tasks ORDER BY id").map { try $0.decode(Task.self) }
        }
        #expect(
            tasks == [
                Task(id: "t1", state: .success, progress: 1, attempts: 2, done: true, note: "ok", payload: [0, 1]),
                Task(id: "t2", state: .pending, progress: 0.5, attempts: 0, done: false, note: nil, payload: nil),
            ])
        let mismatch = await storeErrorCode {
            try await store.read { db in try db.queryFirst("SELECT 'x' AS id, 'BOGUS' AS state")?.decode(Task.self) }
        }
        #expect(mismatch?.code == .database)
        await store.close()
    }

    @Test func aNestedQueryOfTheSameStatementWhileIteratingWorks() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, migrations: [Self.schema])
        try await store.write { db in
            for id in ["a", "b", "c"] {
                try db.execute("INSERT INTO tasks VALUES (?, 'PENDING', 0, 0, 0, NULL, NULL)", id)
            }
        }
        let pairs = try await store.read { db in
            var pairs: [String] = []
            let sql = "SELECT id FROM tasks WHERE id >= ? ORDER BY id"
            try db.forEachRow(sql, ["a"]) { outer in
                let id = try outer.decode("id", as: String.self)
                for inner in try db.query(sql, [.text(id)]) {
                    pairs.append(id + (try inner.decode(0, as: String.self)))
                }
            }
            return pairs
        }
        #expect(pairs == ["aa", "ab", "ac", "bb", "bc", "cc"])
        await store.close()
    }

    @Test func bindingCountMismatchesAreReported() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, migrations: [Self.schema])
        let error = await storeErrorCode {
            try await store.read { db in try db.query("SELECT * FROM tasks WHERE id = ? AND state = ?", "only-one") }
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("2 placeholders but 1") == true)
        await store.close()
    }
}
