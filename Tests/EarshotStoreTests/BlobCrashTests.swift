import EarshotCrypto
import EarshotStore
import EarshotTestSupport
import EarshotCore
import Foundation
import Testing

/// A write killed with SIGKILL (no cleanup code runs) leaves no partial blob.
///
/// The test re-runs this test binary as a child process that runs only ``childWriterKilledMidStream()``: the
/// child overwrites a blob with an endless stream, signals after 8 MB, and is killed by the parent.
@Suite struct BlobCrashTests {
    static let rootVariable = "EARSHOT_BLOB_CRASH_ROOT"
    static let key = "recordings/rec_crash/audio.wav"

    @Test func aWriteKilledMidStreamLeavesTheOldBlobAndOnlyATemporaryFileThatTheNextOpenSweeps() async throws {
        let dir = try TemporaryDirectory()
        let root = dir.url.appendingPathComponent("blobs")
        let key = try BlobKey(Self.key)
        let original = testBytes(100_000, seed: 7)
        do {
            let store = try await FileSystemBlobStore(root: root)
            try await store.put(key, bytes: original)
        }

        let ready = dir.url.appendingPathComponent("ready")
        let child = try Program.testBinary.start(
            ["--testing-library", "swift-testing", "--filter", "childWriterKilledMidStream"],
            environment: [Self.rootVariable: dir.url.path])
        let deadline = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: ready.path) {
            guard child.isRunning, ContinuousClock.now < deadline else {
                Issue.record("the child writer did not reach 8 MB: \(child.diagnostics)")
                child.stop()
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let killed = child.kill()
        #expect(killed.signal == SIGKILL, "\(killed)")

        // The kill left a partial temporary file, and the old blob untouched.
        let temporary = root.appendingPathComponent(".tmp")
        let leftovers = files(in: temporary)
        #expect(leftovers.count == 1)
        let partialSize = try leftovers.first.flatMap {
            try FileManager.default.attributesOfItem(atPath: temporary.appendingPathComponent($0).path)[.size] as? Int
        }
        #expect(partialSize ?? 0 >= 8 * 1024 * 1024)

        // A file a live process is writing is never swept, however old (its writer holds a lock on it)…
        let live = try TemporaryFile(path: temporary.appendingPathComponent("put_live").path)
        try live.write([1, 2, 3])
        // …while the killed writer's leftover, which no live process holds, is swept when a store opens.
        var configuration = FileSystemBlobStore.Configuration(root: root)
        configuration.staleTemporaryAge = .zero
        let swept = try await FileSystemBlobStore(configuration: configuration)
        #expect(files(in: temporary) == ["put_live"])
        #expect(swept.temporaryFilesRemoved == 1)
        #expect(try await swept.get(key).collect() == original)
        #expect(try await swept.info(key).sha256 == DigestAlgorithm.sha256.hash(original))
        #expect(try await swept.list(prefix: "") == [key])
        live.discard()
    }

    @Test func aKilledFirstWriteLeavesNothingUnderTheKey() async throws {
        // Same crash, but the key never existed: after the kill and a sweep, `get` reports notFound. Here the
        // "kill" is the state a killed process leaves behind: a partial file in .tmp and nothing else.
        let dir = try TemporaryDirectory()
        let root = dir.url.appendingPathComponent("blobs")
        _ = try await FileSystemBlobStore(root: root)
        let partial = root.appendingPathComponent(".tmp/put_0000000000000000000a")
        try Data(testBytes(4096)).write(to: partial)
        var configuration = FileSystemBlobStore.Configuration(root: root)
        configuration.staleTemporaryAge = .zero
        let store = try await FileSystemBlobStore(configuration: configuration)
        #expect(!FileManager.default.fileExists(atPath: partial.path))
        #expect(await storeErrorCode { try await store.get(try BlobKey(Self.key)) }?.code == .notFound)
        #expect(try await store.list(prefix: "") == [])
        // The same sweep on demand, for a long-running server.
        try Data([1]).write(to: partial)
        #expect(try await store.removeStaleTemporaryFiles() == 1)
        #expect(!FileManager.default.fileExists(atPath: partial.path))
    }

    /// Runs only in the child process started above.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[rootVariable] != nil))
    func childWriterKilledMidStream() async throws {
        let dir = URL(fileURLWithPath: try #require(ProcessInfo.processInfo.environment[Self.rootVariable]))
        let store = try await FileSystemBlobStore(root: dir.appendingPathComponent("blobs"))
        let ready = dir.appendingPathComponent("ready").path
        let source = ChunkSource(
            bytes: testBytes(8 * 1024 * 1024, seed: 3), chunkSize: 1024 * 1024, thenStallEvery: .milliseconds(20),
            progress: { produced in
                // Chunk n is handed out before it is written: signal once 8 MB are surely on disk.
                if produced == 9 * 1024 * 1024 { _ = FileManager.default.createFile(atPath: ready, contents: nil) }
            })
        try await store.put(try BlobKey(Self.key), from: source)
        Issue.record("the endless write finished")
    }
}
