import EarshotCrypto
import EarshotStore
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotS3

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Direct uploads against SeaweedFS, which checks signatures: parts `PUT` straight to presigned `UploadPart` URLs,
/// listed, completed with the client's ETags, aborted; forged and expired URLs refused by the store.
@Suite(.enabled(if: ScaleOutBackends.s3 != nil, "no S3 server: run through scripts/with-backends (make test does)"))
struct S3DirectUploadTests {
    let session = URLSession(configuration: .ephemeral)

    func makeStore() async throws -> S3BlobStore {
        let s3 = try #require(ScaleOutBackends.s3)
        var configuration = S3BlobStore.Configuration(
            endpoint: s3.endpoint, bucket: ScaleOutBackends.newBucketName("direct"),
            credentials: .init(accessKeyID: s3.accessKeyID, secretAccessKey: s3.secretAccessKey))
        configuration.attempts = 2
        let store = S3BlobStore(configuration)
        try await store.createBucketIfMissing()
        return store
    }

    func bytes(_ count: Int, seed: UInt8 = 5) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ ($0 >> 11) &+ Int(seed)) })
    }

    /// PUTs `body` to `url` as a client would (no credentials): status and ETag.
    func put(_ body: Data, to url: URL) async throws -> (Int, String?) {
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        let (_, response) = try await session.upload(for: request, from: body)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, http.value(forHTTPHeaderField: "ETag"))
    }

    @Test func partsGoStraightToTheBucketAndCompleteIntoOneObject() async throws {
        let store = try await makeStore()
        let key = try BlobKey("files/file_direct1")
        let content = bytes((5 << 20) * 2 + 777)
        let id = try await store.startDirectUpload(key, metadata: ["earshot-upload": "upl_1"])
        #expect(try await store.listDirectUploads(prefix: "files/").map(\.uploadID) == [id])
        var parts: [DirectUploadPart] = []
        for (index, start) in stride(from: 0, to: content.count, by: 5 << 20).enumerated() {
            let body = content[start..<min(start + (5 << 20), content.count)]
            let url = store.presignedPartURL(key, uploadID: id, partNumber: index + 1, expires: .seconds(300))
            #expect(url.query?.contains("X-Amz-Signature=") == true && url.query?.contains("partNumber=") == true)
            let (status, etag) = try await put(Data(body), to: url)
            #expect(status == 200)
            #expect(etag.map { $0.replacingOccurrences(of: "\"", with: "") } == DigestAlgorithm.md5.hash(body).hex)
            parts.append(DirectUploadPart(number: index + 1, size: Int64(body.count), etag: etag ?? ""))
        }
        let listed = try await store.listParts(key, uploadID: id)
        #expect(listed.map(\.number) == [1, 2, 3] && listed.map(\.size) == parts.map(\.size))
        #expect(await (try? store.objectSummary(key)) == nil, "nothing under the key before completion")

        let object = try await store.completeDirectUpload(key, uploadID: id, parts: parts)
        #expect(object.size == Int64(content.count))
        let md5s = parts.flatMap { Digest(hex: $0.etag.replacingOccurrences(of: "\"", with: ""))!.bytes }
        #expect(object.etag.replacingOccurrences(of: "\"", with: "") == DigestAlgorithm.md5.hash(md5s).hex + "-3")
        #expect(try await store.get(key).collect() == Array(content), "read back without x-amz-meta-sha256")
        #expect(try await store.listDirectUploads(prefix: "files/").isEmpty)
        let gone = await #expect(throws: StoreError.self) { try await store.listParts(key, uploadID: id) }
        #expect(gone?.code == .notFound)
    }

    @Test func forgedAndExpiredPartURLsAreRefusedAndLoseNothing() async throws {
        let store = try await makeStore()
        let key = try BlobKey("files/file_direct2")
        let id = try await store.startDirectUpload(key, metadata: [:])
        let first = bytes(5 << 20)
        let url = store.presignedPartURL(key, uploadID: id, partNumber: 1, expires: .seconds(300))
        let (stored, etag) = try await put(first, to: url)
        #expect(stored == 200)

        // Another part number in a URL signed for part 1, a changed signature, another key: 403, nothing stored.
        let text = url.absoluteString
        for forged in [
            text.replacingOccurrences(of: "partNumber=1", with: "partNumber=2"),
            String(text.dropLast(4)) + "0000",
            text.replacingOccurrences(of: "file_direct2", with: "file_direct3"),
        ] {
            let (status, _) = try await put(bytes(1000, seed: 9), to: try #require(URL(string: forged)))
            #expect(status == 403, "\(forged)")
        }
        let expiring = store.presignedPartURL(key, uploadID: id, partNumber: 2, expires: .seconds(1))
        try await Task.sleep(for: .milliseconds(2200))
        let (expired, _) = try await put(bytes(1000, seed: 9), to: expiring)
        #expect(expired == 403)

        let listed = try await store.listParts(key, uploadID: id)
        #expect(listed.map(\.number) == [1] && listed.map(\.size) == [Int64(first.count)])
        #expect(listed.map(\.etag) == [etag ?? ""] && listed[0].lastModified != nil)
        try await store.abortDirectUpload(key, uploadID: id)
    }

    @Test func aWrongETagIsRefusedAtCompletionAndAbortLeavesNoUpload() async throws {
        let store = try await makeStore()
        let key = try BlobKey("files/file_direct4")
        let id = try await store.startDirectUpload(key, metadata: [:])
        let (status, _) = try await put(
            bytes(1234), to: store.presignedPartURL(key, uploadID: id, partNumber: 1, expires: .seconds(60)))
        #expect(status == 200)
        let wrong = DirectUploadPart(number: 1, size: 1234, etag: "\"\(String(repeating: "0", count: 32))\"")
        let refused = await #expect(throws: StoreError.self) {
            try await store.completeDirectUpload(key, uploadID: id, parts: [wrong])
        }
        #expect(refused?.code == .invalidArgument, "\(String(describing: refused))")
        #expect(try await store.listParts(key, uploadID: id).count == 1, "a refused completion keeps the parts")

        try await store.abortDirectUpload(key, uploadID: id)
        try await store.abortDirectUpload(key, uploadID: id)  // again: nothing to do, no error
        #expect(try await store.listDirectUploads(prefix: "").isEmpty)
        #expect(await (try? store.objectSummary(key)) == nil)
    }
}
