import EarshotCrypto
import EarshotStore
import Foundation
import Synchronization
import Testing

@Suite struct FileSystemBlobStoreTests {
    func key(_ string: String) throws -> BlobKey { try BlobKey(string) }

    @Test func roundTripComputesDigestsAndStreamsTheSameBytes() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url.appendingPathComponent("root"))
        let content = testBytes(3 * 1024 * 1024 + 17)
        let key = try key("recordings/rec_1/audio.wav")
        let written = try await store.put(key, from: ChunkSource(bytes: content, chunkSize: 65_521))
        #expect(written.size == Int64(content.count))
        #expect(written.sha256 == DigestAlgorithm.sha256.hash(content))
        #expect(written.md5 == DigestAlgorithm.md5.hash(content))

        let read = try await store.get(key)
        #expect(read.size == Int64(content.count))
        #expect(read.range == 0..<Int64(content.count))
        var chunks = 0
        var bytes: [UInt8] = []
        for try await chunk in read.chunks {
            chunks += 1
            bytes += chunk
        }
        #expect(bytes == content)
        #expect(chunks == 13)  // 256 KiB chunks: the file is streamed, not loaded at once

        let info = try await store.info(key)
        #expect(info.sha256 == written.sha256 && info.md5 == written.md5 && info.size == written.size)
        #expect(try await store.exists(key))
        let local = try #require(try await store.localFile(for: key))
        #expect(try Data(contentsOf: local) == Data(content))
        #expect(try permissions(local) == 0o600)
        #expect(try permissions(dir.url.appendingPathComponent("root")) == 0o700)
        #expect(try permissions(dir.url.appendingPathComponent("root/recordings/rec_1")) == 0o700)
    }

    @Test func rangeReadsReturnExactlyTheRequestedBytes() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        let content = testBytes(600_000)
        let key = try key("a/b")
        try await store.put(key, bytes: content)

        let middle = try await store.get(key, range: 100..<300_000)
        #expect(middle.size == 600_000 && middle.range == 100..<300_000)
        #expect(try await middle.collect() == Array(content[100..<300_000]))
        let tail = try await store.get(key, range: 599_990..<1_000_000)  // clamped to the end
        #expect(tail.range == 599_990..<600_000)
        #expect(try await tail.collect() == Array(content[599_990...]))
        #expect(try await store.get(key, range: 0..<1).collect() == [content[0]])

        for bad: Range<Int64> in [600_000..<600_001, 700_000..<800_000, -1..<5] {
            let error = await storeErrorCode { try await store.get(key, range: bad) }
            #expect(error?.code == .invalidRange, "\(bad)")
        }
        let empty = try self.key("empty")
        try await store.put(empty, bytes: [])
        #expect(try await store.get(empty).collect() == [])
        #expect(
            try await store.info(empty).sha256.hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
    }

    @Test func pingReportsARootThatIsNoLongerAWritableDirectory() async throws {
        let dir = try TemporaryDirectory()
        let root = dir.url.appendingPathComponent("root")
        let store = try await FileSystemBlobStore(root: root)
        try await store.ping()
        try FileManager.default.removeItem(at: root)
        try Data("a file now".utf8).write(to: root)
        let error = await storeErrorCode { try await store.ping() }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("not a directory") == true)
    }

    @Test func missingBlobsAreNotFound() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        let key = try key("nothing/here")
        #expect(await storeErrorCode { try await store.get(key) }?.code == .notFound)
        #expect(await storeErrorCode { try await store.info(key) }?.code == .notFound)
        #expect(await storeErrorCode { try await store.localFile(for: key) }?.code == .notFound)
        #expect(try await store.exists(key) == false)
        try await store.put(try self.key("nothing/here/deeper"), bytes: [1])
        // A key that names a directory of other keys is not a blob.
        #expect(await storeErrorCode { try await store.get(key) }?.code == .notFound)
        #expect(try await store.exists(key) == false)
    }

    @Test func aSourceThatFailsAfterTenMegabytesLeavesNoBlobAndNoTemporaryFile() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        let key = try key("uploads/file_a/audio")
        let source = ChunkSource(
            bytes: testBytes(12 * 1024 * 1024), chunkSize: 1024 * 1024, failAfter: 10 * 1024 * 1024)
        await #expect(throws: SourceFailure.self) { try await store.put(key, from: source) }
        #expect(try await store.exists(key) == false)
        #expect(files(in: dir.url.appendingPathComponent(".tmp")) == [])
        #expect(try await store.list(prefix: "") == [])
    }

    @Test func aCancelledWriteLeavesNoBlobAndNoTemporaryFile() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        let key = try key("uploads/file_b/audio")
        let produced = Atomic<Int>(0)
        let source = ChunkSource(
            bytes: testBytes(1024 * 1024), chunkSize: 64 * 1024, thenStallEvery: .milliseconds(5),
            progress: { produced.store($0, ordering: .relaxed) })
        let write = Task { try await store.put(key, from: source) }
        while produced.load(ordering: .relaxed) < 2 * 1024 * 1024 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(files(in: dir.url.appendingPathComponent(".tmp")).count == 1)  // the write is in progress
        write.cancel()
        await #expect(throws: CancellationError.self) { try await write.value }
        #expect(try await store.exists(key) == false)
        #expect(files(in: dir.url.appendingPathComponent(".tmp")) == [])
    }

    @Test func expectedDigestsAreVerifiedBeforeAnythingIsStored() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        let content = testBytes(5000)
        let key = try key("parts/p1")
        let wrong = BlobWriteOptions(expectedMD5: DigestAlgorithm.md5.hash([1, 2, 3]))
        let error = await storeErrorCode { try await store.put(key, bytes: content, options: wrong) }
        #expect(error?.code == .corrupted)
        #expect(error?.message.contains("MD5") == true)
        #expect(try await store.exists(key) == false)
        #expect(
            await storeErrorCode { try await store.put(key, bytes: content, options: .init(expectedSize: 4999)) }?.code
                == .corrupted)
        let right = BlobWriteOptions(
            expectedSHA256: DigestAlgorithm.sha256.hash(content), expectedMD5: DigestAlgorithm.md5.hash(content),
            expectedSize: 5000)
        #expect(try await store.put(key, bytes: content, options: right).size == 5000)
        #expect(files(in: dir.url.appendingPathComponent(".tmp")) == [])
    }

    @Test func overwritingReplacesContentAndDigestsWhileOpenReadersKeepTheOldContent() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        let key = try key("k")
        let old = testBytes(1_000_000, seed: 1)
        let new = testBytes(10, seed: 2)
        try await store.put(key, bytes: old)
        let reading = try await store.get(key)
        try await store.put(key, bytes: new)
        #expect(try await reading.collect() == old)
        #expect(try await store.get(key).collect() == new)
        #expect(try await store.info(key).sha256 == DigestAlgorithm.sha256.hash(new))
    }

    @Test func concurrentWritesToOneKeyLeaveOneWholeVersion() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        let key = try key("contended")
        let versions = (1...8).map { testBytes(200_000 + Int($0) * 1000, seed: $0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for version in versions {
                group.addTask { try await store.put(key, from: ChunkSource(bytes: version, chunkSize: 8192)) }
            }
            try await group.waitForAll()
        }
        let final = try await store.get(key).collect()
        #expect(versions.contains(final))
        #expect(try await store.info(key).sha256 == DigestAlgorithm.sha256.hash(final))
        #expect(files(in: dir.url.appendingPathComponent(".tmp")) == [])
    }

    @Test func deleteIsIdempotentAndPrunesEmptyDirectories() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        let key = try key("uploads/file_c/part-00001")
        try await store.put(key, bytes: [1, 2, 3])
        try await store.delete(key)
        try await store.delete(key)
        #expect(try await store.exists(key) == false)
        #expect(files(in: dir.url) == [".tmp"])
        try await store.put(key, bytes: [4])  // the directories come back
        #expect(try await store.get(key).collect() == [4])
    }

    @Test func listReturnsSortedKeysUnderAPrefixAndNothingElse() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        for name in ["uploads/file_a/part-00002", "uploads/file_a/part-00001", "uploads/file_b/part-00001", "other"] {
            try await store.put(try key(name), bytes: [0])
        }
        #expect(
            try await store.list(prefix: "uploads/file_a/").map(\.rawValue) == [
                "uploads/file_a/part-00001", "uploads/file_a/part-00002",
            ])
        #expect(try await store.list(prefix: "uploads/file_").count == 3)
        #expect(try await store.list(prefix: "").count == 4)  // no sidecars, no .tmp
        #expect(try await store.list(prefix: "missing/") == [])
        for bad in ["../", "/", "uploads//", ".tmp/", "UP"] {
            #expect(await storeErrorCode { try await store.list(prefix: bad) }?.code == .invalidKey, "\(bad)")
        }
    }

    @Test func aKeyCannotAlsoBeADirectoryOfKeys() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        try await store.put(try key("a/b"), bytes: [1])
        #expect(await storeErrorCode { try await store.put(try key("a/b/c"), bytes: [2]) }?.code == .conflict)
        #expect(await storeErrorCode { try await store.put(try key("a"), bytes: [2]) }?.code == .conflict)
        #expect(try await store.get(try key("a/b")).collect() == [1])
        #expect(files(in: dir.url.appendingPathComponent(".tmp")) == [])
    }

    @Test func composeConcatenatesPartsAtomically() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        let parts = [testBytes(5 * 1024 * 1024, seed: 1), testBytes(300_001, seed: 2), testBytes(1, seed: 3)]
        var keys: [BlobKey] = []
        for (index, part) in parts.enumerated() {
            let partKey = try key("uploads/file_d/part-0000\(index + 1)")
            let info = try await store.put(partKey, bytes: part)
            #expect(info.md5 == DigestAlgorithm.md5.hash(part))  // the part's ETag
            keys.append(partKey)
        }
        let whole = parts.flatMap { $0 }
        let target = try key("files/file_d")
        let info = try await store.compose(keys, into: target)
        #expect(info.size == Int64(whole.count))
        #expect(info.sha256 == DigestAlgorithm.sha256.hash(whole))
        #expect(info.md5 == DigestAlgorithm.md5.hash(whole))
        #expect(try await store.get(target).collect() == whole)
        #expect(try await store.list(prefix: "uploads/file_d/").count == 3)  // parts are left for the caller

        let missing = [keys[0], try key("uploads/file_d/part-00009")]
        let error = await storeErrorCode { try await store.compose(missing, into: try key("files/other")) }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("part 2 (uploads/file_d/part-00009)") == true)
        #expect(try await store.exists(try key("files/other")) == false)
        #expect(files(in: dir.url.appendingPathComponent(".tmp")) == [])
        #expect(await storeErrorCode { try await store.compose([], into: target) }?.code == .invalidArgument)
        #expect(await storeErrorCode { try await store.compose([target], into: target) }?.code == .invalidArgument)
    }

    @Test func movingAFileInTakesItWithoutCopyingAndRecordsDigests() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url.appendingPathComponent("blobs"))
        let spooled = dir.url.appendingPathComponent("upload.tmp")
        let content = testBytes(700_000)
        try Data(content).write(to: spooled)
        let inode = try FileManager.default.attributesOfItem(atPath: spooled.path)[.systemFileNumber] as? Int
        let key = try key("recordings/rec_2/audio.m4a")
        let info = try await store.put(key, movingFile: spooled)
        #expect(info.sha256 == DigestAlgorithm.sha256.hash(content))
        #expect(!FileManager.default.fileExists(atPath: spooled.path))
        let local = try #require(try await store.localFile(for: key))
        #expect(try FileManager.default.attributesOfItem(atPath: local.path)[.systemFileNumber] as? Int == inode)
        #expect(try permissions(local) == 0o600)
        #expect(try await store.get(key).collect() == content)
        let error = await storeErrorCode { try await store.put(key, movingFile: spooled) }
        #expect(error?.code == .notFound)
    }

    @Test func aMovedFileWithKnownDigestsIsRecordedWithThemAndAWrongSizeIsRefused() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url.appendingPathComponent("blobs"))
        let content = testBytes(300_000, seed: 4)
        let known = BlobWriteOptions.KnownDigests(
            size: Int64(content.count), sha256: DigestAlgorithm.sha256.hash(content),
            md5: DigestAlgorithm.md5.hash(content))
        let spooled = dir.url.appendingPathComponent("body.tmp")
        try Data(content).write(to: spooled)
        let key = try key("uploads/u1/part-1")
        let info = try await store.put(key, movingFile: spooled, options: .init(knownDigests: known))
        #expect(info.size == known.size && info.sha256 == known.sha256 && info.md5 == known.md5)
        #expect(try await store.info(key).sha256 == known.sha256)
        #expect(try await store.get(key).collect() == content)

        // A writer that reports another size is not believed: nothing is stored and no temporary file is left.
        try Data(content.dropLast()).write(to: spooled)
        let other = try self.key("uploads/u1/part-2")
        let error = await storeErrorCode {
            try await store.put(other, movingFile: spooled, options: .init(knownDigests: known))
        }
        #expect(error?.code == .corrupted)
        #expect(try await store.exists(other) == false)
        #expect(files(in: dir.url.appendingPathComponent("blobs/.tmp")) == [])
    }

    @Test func digestsAreRecomputedWhenTheSidecarIsMissingOrDescribesAnotherFile() async throws {
        let dir = try TemporaryDirectory()
        let store = try await FileSystemBlobStore(root: dir.url)
        let key = try key("r/audio")
        try await store.put(key, bytes: testBytes(1000, seed: 1))
        // Simulate a crash between renaming a new version into place and renaming its sidecar.
        let replacement = testBytes(1000, seed: 9)
        let staged = dir.url.appendingPathComponent("staged")
        try Data(replacement).write(to: staged)
        #expect(rename(staged.path, dir.url.appendingPathComponent("r/audio").path) == 0)
        #expect(try await store.info(key).sha256 == DigestAlgorithm.sha256.hash(replacement))
        try FileManager.default.removeItem(at: dir.url.appendingPathComponent("r/.audio.meta"))
        #expect(try await store.info(key).md5 == DigestAlgorithm.md5.hash(replacement))
        #expect(FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("r/.audio.meta").path))
    }
}
