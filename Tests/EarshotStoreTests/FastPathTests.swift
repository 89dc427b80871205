import EarshotCrypto
import EarshotStore
import Foundation
import Testing

/// The store's two fast paths: a read answered on the calling thread when a reader is idle, and a compose that
/// assembles in the kernel from parts the caller already digested.
@Suite struct FastPathTests {
    static let notes = Migration(
        version: 1, name: "notes", sql: "CREATE TABLE notes (id TEXT PRIMARY KEY, title TEXT NOT NULL);")

    @Test func readImmediatelyAnswersFromAnIdleReaderAndSeesCommittedWrites() async throws {
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, migrations: [Self.notes], readers: 2)
        try await store.write { db in try db.execute("INSERT INTO notes (id, title) VALUES ('n1', 'first')") }
        let title = try store.readImmediately { db in
            try db.scalar("SELECT title FROM notes WHERE id = ?", "n1", as: String.self)
        }
        #expect(title == .some("first"))
        // The borrowed reader went back: a thousand immediate reads in a row never run out of readers.
        for _ in 0..<1000 {
            #expect(try store.readImmediately { db in try db.scalar("SELECT count(*) FROM notes", as: Int.self) } == 1)
        }
        #expect(try await store.read { db in try db.scalar("SELECT count(*) FROM notes", as: Int.self) } == 1)
        await store.close()
        #expect(throws: StoreError.self) { try store.readImmediately { _ in 1 } }
    }

    @Test func readImmediatelyDeclinesWhenItWouldHaveToWait() async throws {
        // An in-memory database has only the writer's connection: every immediate read declines.
        let memory = try await SQLiteMetadataStore(
            configuration: .init(location: .inMemory, schema: [SchemaComponent("test", [Self.notes])]))
        #expect(try memory.readImmediately { _ in 1 } == nil)
        #expect(try await memory.read { _ in 1 } == 1)
        await memory.close()

        // With its only reader busy (held inside a slow read), a file database declines too.
        let dir = try TemporaryDirectory()
        let store = try await openSQLite(in: dir.url, migrations: [Self.notes], readers: 1)
        let holding = Task {
            try await store.read { _ in Thread.sleep(forTimeInterval: 0.5) }
        }
        try await Task.sleep(for: .milliseconds(150))
        #expect(try store.readImmediately { _ in 1 } == nil)
        try await holding.value
        #expect(try store.readImmediately { _ in 1 } == 1)
        await store.close()
    }

    @Test func composeWithTheCallersDigestAssemblesWithoutReading() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        let parts = [testBytes(5 * 1024 * 1024, seed: 1), testBytes(300_001, seed: 2), testBytes(1, seed: 3)]
        var keys: [BlobKey] = []
        for (index, part) in parts.enumerated() {
            let partKey = try BlobKey("uploads/file_f/part-0000\(index + 1)")
            try await store.put(partKey, bytes: part)
            keys.append(partKey)
        }
        let whole = parts.flatMap { $0 }
        let sha256 = DigestAlgorithm.sha256.hash(whole)
        let target = try BlobKey("files/file_f")
        let info = try await store.compose(
            keys, into: target, options: .init(expectedSize: Int64(whole.count), composedSHA256: sha256))
        #expect(info.size == Int64(whole.count))
        #expect(info.sha256 == sha256)
        #expect(info.md5 == nil)  // never computed: the bytes were not read
        #expect(try await store.get(target).collect() == whole)
        let reread = try await store.info(target)  // from the sidecar, which records no MD5
        #expect(reread.sha256 == sha256 && reread.md5 == nil && reread.size == Int64(whole.count))
        #expect(try await store.list(prefix: "uploads/file_f/").count == 3)

        // A size the parts do not add up to stores nothing.
        let other = try BlobKey("files/file_g")
        let error = await storeErrorCode {
            try await store.compose(
                keys, into: other, options: .init(expectedSize: Int64(whole.count + 1), composedSHA256: sha256))
        }
        #expect(error?.code == .corrupted)
        #expect(try await store.exists(other) == false)
        #expect(files(in: dir.url.appendingPathComponent(".tmp")) == [])
    }
}
