import EarshotAPI
import EarshotCrypto
import EarshotServerTestSupport
import EarshotStore
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `upload-direct` on PostgreSQL + SeaweedFS (which checks signatures): the seed's plan → PUT parts → complete flow
/// unchanged, but the part URLs are the bucket's presigned `UploadPart` URLs, so the bytes never cross the API.
@Suite(
    .serialized,
    .enabled(if: ScaleOutBackends.available, "no PostgreSQL/S3: run through scripts/with-backends (make test does)"))
struct DirectUploadTests {
    static let chunk = 5 << 20

    static func direct(_ extra: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in })
        -> @Sendable (inout ServerConfiguration) -> Void
    {
        { configuration in
            configuration.uploadDirect = true
            configuration.uploadChunkSize = chunk
            configuration.uploadMaxFileSize = 64 << 20
            extra(&configuration)
        }
    }

    func bucket(_ platform: TestPlatform) async throws -> any DirectUploadBlobStore {
        try #require(try await Application.openBlobStore(platform.configuration) as? any DirectUploadBlobStore)
    }

    func status(_ platform: TestPlatform, _ plan: UploadPlan, token: String) async throws -> TestPlatform.HTTPResult {
        try await platform.send("GET", "/open/partner/files/upload/\(plan.uploadID)/parts", token: token)
    }

    @Test func aMultipartUploadGoesStraightToTheBucketAndCompletesToAVerifiedFile() async throws {
        try await TestPlatform.with(backend: .scaled, Self.direct()) { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(2 * Self.chunk + 4321)
            let plan = try await platform.plan(content.count, token: token)
            let s3 = try #require(ScaleOutBackends.s3)
            #expect(plan.chunkSize == Self.chunk && plan.parts.count == 3)
            #expect(
                plan.parts.allSatisfy { $0.presignedURL.hasPrefix(s3.endpoint.absoluteString) },
                "part URLs are the bucket's: \(plan.parts[0].presignedURL)")
            var etags: [Int: String] = [:]
            for part in plan.parts.reversed() {  // any order
                etags[part.partNumber] = try await platform.putPart(part.partNumber, of: content, plan: plan)
            }
            let listed = try await status(platform, plan, token: token).decode(UploadStatus.self)
            #expect(listed.parts.map(\.partNumber) == [1, 2, 3] && listed.pending.isEmpty)
            #expect(listed.parts.map(\.etag) == [1, 2, 3].map { etags[$0]! })

            let done = try await platform.complete(plan, etags: etags, token: token)
            try #require(done.status == 200, "\(done.text)")
            let completion = try done.decode(CompleteUploadResponse.self)
            let info = try await platform.send("GET", "/open/partner/files/\(plan.fileID)", token: token)
                .decode(FileInfo.self)
            #expect(info.size == content.count)
            #expect(info.sha256 == DigestAlgorithm.sha256.hash(content).hex, "the server read the object back")
            // The download is a 307 to a presigned GET of the object: byte-identical.
            let (downloaded, response) = try await URLSession.shared.data(from: URL(string: completion.downloadURL)!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(downloaded == content)
            // Only the file is in the bucket: no part blobs, no multipart upload left.
            #expect(try await platform.blobFiles() == ["files/\(plan.fileID)"])
            #expect(try await bucket(platform).listDirectUploads(prefix: "").isEmpty)
            // Completing again (a retry after a lost answer) answers the same file.
            let again = try await platform.complete(plan, etags: etags, token: token)
            #expect(again.status == 200 && (try? again.decode(CompleteUploadResponse.self).fileID) == plan.fileID)
        }
    }

    @Test func forgedOrExpiredPartURLsAreRefusedByTheStoreAndLoseNothing() async throws {
        try await TestPlatform.with(backend: .scaled, Self.direct { $0.uploadURLTTL = .seconds(2) }) { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(Self.chunk + 100, seed: 3)
            let plan = try await platform.plan(content.count, token: token)
            let first = try await platform.putPart(1, of: content, plan: plan)
            let forged = plan.parts[0].presignedURL.replacingOccurrences(of: "partNumber=1", with: "partNumber=2")
            #expect(try await platform.send("PUT", forged, body: content[Self.chunk...]).status == 403)
            try await Task.sleep(for: .milliseconds(2600))
            let expired = try await platform.send("PUT", plan.parts[1].presignedURL, body: content[Self.chunk...])
            #expect(expired.status == 403, "\(expired.text)")

            // Nothing lost: part 1 is still there; part 2 gets a fresh URL and completes the upload.
            let listed = try await status(platform, plan, token: token).decode(UploadStatus.self)
            #expect(listed.parts.map(\.partNumber) == [1] && listed.parts[0].etag == first)
            let fresh = try #require(listed.pending.first { $0.partNumber == 2 })
            let put = try await platform.send("PUT", fresh.presignedURL, body: content[Self.chunk...])
            #expect(put.status == 200)
            let done = try await platform.complete(plan, etags: [1: first, 2: put.header("ETag") ?? ""], token: token)
            #expect(done.status == 200, "\(done.text)")
            let info = try await platform.send("GET", "/open/partner/files/\(plan.fileID)", token: token)
                .decode(FileInfo.self)
            #expect(info.sha256 == DigestAlgorithm.sha256.hash(content).hex)
        }
    }

    @Test func aWrongETagAMissingPartOrAWrongSizedPartIsAClearError() async throws {
        try await TestPlatform.with(backend: .scaled, Self.direct()) { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(Self.chunk + 2000, seed: 4)
            let plan = try await platform.plan(content.count, token: token)
            let first = try await platform.putPart(1, of: content, plan: plan)

            let missing = try await platform.complete(plan, etags: [1: first, 2: "\"abc\""], token: token)
            #expect(missing.status == 400 && missing.errorCode == "INVALID_ARGUMENT")
            #expect(missing.errorMessage.contains("part 2 was never uploaded"), "\(missing.errorMessage)")
            let second = try await platform.putPart(2, of: content, plan: plan)
            let unlisted = try await platform.complete(plan, etags: [1: first], token: token)
            #expect(unlisted.status == 400 && unlisted.errorMessage.contains("part 2 is missing from part_list"))
            let wrong = try await platform.complete(
                plan, etags: [1: first, 2: "\"\(String(repeating: "f", count: 32))\""], token: token)
            #expect(wrong.status == 400 && wrong.errorMessage.contains("part 2: ETag"), "\(wrong.errorMessage)")

            // A part 1 of the wrong size is accepted by the store, but not by completion.
            let short = try await platform.send("PUT", plan.parts[0].presignedURL, body: content[0..<1000])
            #expect(short.status == 200)
            let sized = try await platform.complete(
                plan, etags: [1: short.header("ETag") ?? "", 2: second], token: token)
            #expect(
                sized.status == 400 && sized.errorMessage.contains("part 1 has 1000 bytes"), "\(sized.errorMessage)")
            // Sent again at the right size, the upload completes.
            let good = try await platform.putPart(1, of: content, plan: plan)
            let done = try await platform.complete(plan, etags: [1: good, 2: second], token: token)
            #expect(done.status == 200, "\(done.text)")
        }
    }

    @Test func abortAndTheSweepLeaveNoMultipartUploadBehind() async throws {
        let content = testContent(Self.chunk + 10, seed: 5)
        try await TestPlatform.with(backend: .scaled, Self.direct()) { platform in
            let store = try await bucket(platform)
            let (_, _, token) = try await platform.newUser()
            let aborted = try await platform.plan(content.count, token: token)
            _ = try await platform.putPart(1, of: content, plan: aborted)
            let abort = try await platform.send(
                "DELETE", "/open/partner/files/upload/\(aborted.uploadID)", token: token)
            #expect(abort.status == 204)
            #expect(try await status(platform, aborted, token: token).status == 404)
            #expect(try await store.listDirectUploads(prefix: "").isEmpty)
        }
        try await TestPlatform.with(backend: .scaled, Self.direct { $0.uploadMaxAge = .seconds(1) }) { platform in
            let store = try await bucket(platform)
            let (_, _, token) = try await platform.newUser()
            // Abandoned: the sweep (uploads idle over 1 s) aborts it, and an upload the store has but no row owns.
            let abandoned = try await platform.plan(content.count, token: token)
            _ = try await platform.putPart(2, of: content, plan: abandoned)  // 10 bytes: before the sweep comes
            let orphan = try await store.startDirectUpload(try BlobKey("files/file_orphan"), metadata: [:])
            // The sweep aborts the store's upload, then forgets its row: wait for both.
            let deadline = ContinuousClock.now + .seconds(20)
            var left = try await store.listDirectUploads(prefix: "")
            var known = try await status(platform, abandoned, token: token).status
            while !left.isEmpty || known != 404, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                left = try await store.listDirectUploads(prefix: "")
                known = try await status(platform, abandoned, token: token).status
            }
            #expect(left.isEmpty, "left behind: \(left.map(\.key)) (orphan \(orphan))")
            #expect(known == 404)
            #expect(try await platform.blobFiles().isEmpty)
        }
    }

    @Test func anotherTenantsUploadIDIsRefused() async throws {
        try await TestPlatform.with(backend: .scaled, Self.direct()) { platform in
            let (_, _, alice) = try await platform.newUser("alice", partner: "Acme")
            let (_, _, mallory) = try await platform.newUser("mallory", partner: "Other")
            let content = testContent(1000, seed: 6)
            let plan = try await platform.plan(content.count, token: alice)
            let etag = try await platform.putPart(1, of: content, plan: plan)
            #expect(try await status(platform, plan, token: mallory).status == 404)
            #expect(try await platform.complete(plan, etags: [1: etag], token: mallory).status == 404)
            #expect(
                try await platform.send("DELETE", "/open/partner/files/upload/\(plan.uploadID)", token: mallory).status
                    == 404)
            let done = try await platform.complete(plan, etags: [1: etag], token: alice)
            #expect(done.status == 200, "\(done.text)")
        }
    }
}
