import EarshotCrypto
import EarshotStore
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotS3

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The S3 blob store against a real S3 server that checks signatures (SeaweedFS on 127.0.0.1, started once by
/// `scripts/with-backends`; `make test` runs it). Without the server these tests do not run, and say why.
@Suite(.enabled(if: ScaleOutBackends.s3 != nil, "no S3 server: run through scripts/with-backends (make test does)"))
struct S3BlobStoreTests {
    /// A store on a new bucket of the test server, with small parts so multipart uploads are exercised.
    func makeStore(secret: String? = nil, partSize: Int = 5 * 1024 * 1024) async throws -> S3BlobStore {
        let s3 = try #require(ScaleOutBackends.s3)
        var configuration = S3BlobStore.Configuration(
            endpoint: s3.endpoint, bucket: ScaleOutBackends.newBucketName("blobs"),
            credentials: .init(accessKeyID: s3.accessKeyID, secretAccessKey: secret ?? s3.secretAccessKey))
        configuration.partSize = partSize
        configuration.attempts = 2
        let store = S3BlobStore(configuration)
        if secret == nil { try await store.createBucketIfMissing() }
        return store
    }

    func bytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 9) &+ Int(seed)) }
    }

    @Test func putGetInfoListDeleteRoundTrip() async throws {
        let store = try await makeStore()
        let key = try BlobKey("uploads/file_1/audio.wav")
        let content = bytes(70_000)
        let stored = try await store.put(key, bytes: content)
        #expect(stored.size == 70_000)
        #expect(stored.sha256 == DigestAlgorithm.sha256.hash(content))
        #expect(try await store.get(key).collect() == content)
        let info = try await store.info(key)
        #expect(info.size == 70_000 && info.sha256 == stored.sha256 && info.md5 == DigestAlgorithm.md5.hash(content))
        try await store.put(try BlobKey("uploads/file_2/x"), bytes: [1])
        try await store.put(try BlobKey("other/y"), bytes: [2])
        #expect(
            try await store.list(prefix: "uploads/").map(\.rawValue) == [
                "uploads/file_1/audio.wav", "uploads/file_2/x",
            ])
        try await store.delete(key)
        #expect(try await store.exists(key) == false)
        let missing = await #expect(throws: StoreError.self) { try await store.info(key) }
        #expect(missing?.code == .notFound)
        try await store.delete(key)  // deleting nothing succeeds
    }

    @Test func rangeReadsAreClampedAndAnEmptyBlobReads() async throws {
        let store = try await makeStore()
        let key = try BlobKey("r/one")
        let content = bytes(1000)
        try await store.put(key, bytes: content)
        let part = try await store.get(key, range: 10..<20)
        #expect(part.range == 10..<20 && part.size == 1000)
        #expect(try await part.collect() == Array(content[10..<20]))
        #expect(try await store.get(key, range: 990..<5000).collect() == Array(content[990...]))
        let beyond = await #expect(throws: StoreError.self) { try await store.get(key, range: 2000..<2001) }
        #expect(beyond?.code == .invalidRange)
        let empty = try BlobKey("r/empty")
        try await store.put(empty, bytes: [])
        #expect(try await store.get(empty).collect() == [])
    }

    @Test func largeBlobsGoUpInPartsAndReadBackWhole() async throws {
        let store = try await makeStore()
        let key = try BlobKey("big/audio")
        let content = bytes(11 * 1024 * 1024 + 123, seed: 3)
        let chunks = stride(from: 0, to: content.count, by: 1 << 20).map {
            Array(content[$0..<min($0 + (1 << 20), content.count)])
        }
        let stored = try await store.put(key, from: chunks.async)
        #expect(stored.size == Int64(content.count))
        let info = try await store.info(key)
        #expect(info.sha256 == DigestAlgorithm.sha256.hash(content))
        #expect(try await store.get(key).collect() == content)
        let middle = try await store.get(key, range: 5_242_000..<5_243_000).collect()
        #expect(middle == Array(content[5_242_000..<5_243_000]))
    }

    @Test func composeConcatenatesPartsInOrder() async throws {
        let store = try await makeStore()
        let a = try BlobKey("parts/1")
        let b = try BlobKey("parts/2")
        try await store.put(a, bytes: Array("hello ".utf8))
        try await store.put(b, bytes: Array("world".utf8))
        let whole = try await store.compose([a, b], into: try BlobKey("whole"))
        #expect(whole.sha256 == DigestAlgorithm.sha256.hash(Array("hello world".utf8)))
        #expect(try await store.get(try BlobKey("whole")).collect() == Array("hello world".utf8))
    }

    @Test func aWriteThatFailsItsExpectationLeavesNothing() async throws {
        let store = try await makeStore()
        let key = try BlobKey("checked")
        let wrong = await #expect(throws: StoreError.self) {
            try await store.put(
                key, bytes: [1, 2, 3], options: .init(expectedSHA256: DigestAlgorithm.sha256.hash([9])))
        }
        #expect(wrong?.code == .corrupted)
        #expect(try await store.exists(key) == false)
    }

    @Test func aWrongSecretIsRefusedByTheStore() async throws {
        let good = try await makeStore()
        let bad = S3BlobStore(
            {
                var configuration = good.configuration
                configuration.credentials.secretAccessKey = "not-the-secret"
                configuration.attempts = 1
                return configuration
            }())
        let refused = await #expect(throws: StoreError.self) { try await bad.put(try BlobKey("x"), bytes: [1]) }
        #expect(refused?.code == .unavailable)
        #expect(refused?.message.contains("403") == true)
        await #expect(throws: StoreError.self) { try await bad.ping() }
        try await good.ping()
    }

    @Test func aPresignedURLReadsAndATamperedOneIsRefused() async throws {
        let store = try await makeStore()
        let key = try BlobKey("shared/clip")
        try await store.put(key, bytes: Array("presigned content".utf8))
        let url = store.presignedGet(key, expires: .seconds(60))
        let session = URLSession(configuration: .ephemeral)
        let (body, response) = try await session.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == "presigned content")

        var ranged = URLRequest(url: url)
        ranged.setValue("bytes=0-8", forHTTPHeaderField: "Range")
        let (part, partResponse) = try await session.data(for: ranged)
        #expect((partResponse as? HTTPURLResponse)?.statusCode == 206)
        #expect(String(decoding: part, as: UTF8.self) == "presigned")

        let text = url.absoluteString
        let signature = try #require(text.range(of: "X-Amz-Signature=")).upperBound
        let flipped = text[signature] == "0" ? "1" : "0"
        let tampered = URL(string: text.replacingCharacters(in: signature...signature, with: flipped))!
        let (_, refused) = try await session.data(from: tampered)
        #expect((refused as? HTTPURLResponse)?.statusCode == 403)
        let otherKey = URL(string: text.replacingOccurrences(of: "/shared/clip?", with: "/shared/other?"))!
        let (_, moved) = try await session.data(from: otherKey)
        #expect((moved as? HTTPURLResponse)?.statusCode == 403)
    }
}

extension Array where Element == [UInt8] {
    /// The chunks as an async sequence (a test upload).
    fileprivate var async: AsyncStream<[UInt8]> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}

extension S3BlobStoreTests {
    @Test func pingFailsOnceTheBucketIsGone() async throws {
        let store = try await makeStore()
        try await store.ping()
        let gone = try await store.client.send("DELETE", what: "delete bucket")
        #expect(gone.status == 204 || gone.status == 200)
        let failure = await #expect(throws: StoreError.self) { try await store.ping() }
        #expect(failure?.code == .unavailable)
        #expect(failure?.message.contains(store.configuration.bucket) == true)
    }

}

/// An object store nobody answers for: no S3 server needed.
@Suite struct S3UnreachableTests {
    @Test func anUnreachableStoreIsUnavailableAfterItsRetries() async throws {
        // Port 1 on loopback: nothing listens there, so every connection is refused.
        var configuration = S3BlobStore.Configuration(
            endpoint: URL(string: "http://127.0.0.1:1")!, bucket: "nobody-home",
            credentials: .init(accessKeyID: "k", secretAccessKey: "s"))
        configuration.attempts = 3
        configuration.retryDelay = .milliseconds(20)
        let store = S3BlobStore(configuration)
        let failure = await #expect(throws: StoreError.self) { try await store.createBucketIfMissing() }
        #expect(failure?.code == .unavailable)
        #expect(failure?.message.contains("failed 3 times") == true)
        await #expect(throws: StoreError.self) { try await store.ping() }
    }
}
