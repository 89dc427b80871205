import EarshotAPI
import EarshotCrypto
import Foundation
import EarshotServerTestSupport
import Testing

@testable import EarshotServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The seed app's flow with URLSession against a real server: token → presigned plan → parallel part PUTs →
/// complete → download with Range.
@Suite struct UploadFlowTests {
    @Test(arguments: ServerTestBackend.available)
    func theSeedFlowUploadsInParallelAndDownloadsWithRange(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend, { $0.apiPrefix = "/developer/api" }) { platform in
            let partner = try await platform.createPartner()
            // The partner backend: client credentials → partner token → user token (under the prefix).
            let api = platform.base.absoluteString + "/developer/api"
            let tokenResponse = try await platform.send(
                "POST", api + APIPath.partnerToken,
                json: ["client_id": partner.clientID, "client_secret": partner.clientSecret])
            let partnerToken = try tokenResponse.decode(TokenResponse.self).accessToken
            let userResponse = try await platform.send(
                "POST", api + APIPath.userToken, token: partnerToken, json: ["user_id": "seed-user"])
            let userToken = try userResponse.decode(TokenResponse.self).accessToken

            // The app: plan (decoded with the seed's own PascalCase keys).
            let audio = testContent(300_000)  // 4 full parts of 64 KiB and a short last one
            let host = URL(string: api)!
            var request = URLRequest(url: host.appendingPathComponent(APIPath.generatePresignedURLs))
            request.httpMethod = "POST"
            request.setValue("Bearer " + userToken, forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: ["filesize": audio.count, "filetype": "m4a"])
            let (planData, planResponse) = try await URLSession.shared.data(for: request)
            #expect((planResponse as? HTTPURLResponse)?.statusCode == 200)
            let plan = try JSONDecoder().decode(SeedUploadPlan.self, from: planData)
            #expect(plan.chunkSize == 64 << 10)
            #expect(plan.parts.map(\.partNumber) == [1, 2, 3, 4, 5])
            #expect(plan.parts.allSatisfy { $0.presignedUrl.hasPrefix(api + "/open/partner/files/upload/parts/") })

            // Parts PUT in parallel, exactly as the seed sends them (no Content-Type, no bearer).
            let etags = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for part in plan.parts {
                    group.addTask {
                        let start = (part.partNumber - 1) * plan.chunkSize
                        let end = min(start + plan.chunkSize, audio.count)
                        var put = URLRequest(url: URL(string: part.presignedUrl)!)
                        put.httpMethod = "PUT"
                        let (_, response) = try await URLSession.shared.upload(for: put, from: audio[start..<end])
                        let http = try #require(response as? HTTPURLResponse)
                        #expect(http.statusCode == 200)
                        let etag = try #require(http.value(forHTTPHeaderField: "ETag"))
                        let md5 = DigestAlgorithm.md5.hash(audio[start..<end]).hex
                        #expect(etag == "\"\(md5)\"")
                        return (part.partNumber, etag)
                    }
                }
                return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }

            let done = try await platform.send(
                "POST", api + APIPath.completeUpload, token: userToken,
                json: [
                    "file_id": plan.fileId, "upload_id": plan.uploadId, "filetype": "m4a",
                    "part_list": etags.sorted { $0.key < $1.key }.map { ["part_number": $0.key, "etag": $0.value] },
                ])
            #expect(done.status == 200, "\(done.text)")
            let completion = try done.decode(CompleteUploadResponse.self)
            #expect(completion.fileID == plan.fileId)
            #expect(completion.downloadURL.hasPrefix(api + "/open/partner/files/\(plan.fileId)/download?"))

            // Download whole and by range (sendfile + Range).
            let whole = try await platform.send("GET", completion.downloadURL)
            #expect(whole.status == 200)
            #expect(whole.data == audio)
            #expect(whole.header("Content-Type") == "audio/mp4")
            #expect(whole.header("Accept-Ranges") == "bytes")
            let range = try await platform.send("GET", completion.downloadURL, headers: ["Range": "bytes=65530-65545"])
            #expect(range.status == 206)
            #expect(range.data == audio[65530...65545])
            #expect(range.header("Content-Range") == "bytes 65530-65545/300000")
            let tail = try await platform.send("GET", completion.downloadURL, headers: ["Range": "bytes=-10"])
            #expect(tail.data == audio.suffix(10))

            // The file's record, read back with the user token.
            let info = try await platform.send("GET", api + "/open/partner/files/\(plan.fileId)", token: userToken)
            let file = try info.decode(FileInfo.self)
            #expect(file.size == audio.count)
            #expect(file.userID == "seed-user")
            #expect(file.sha256 == DigestAlgorithm.sha256.hash(audio).hex)

            // The part blobs are deleted once assembled, right after completion answered.
            let prefix = "uploads/\(plan.uploadId)"
            let deadline = ContinuousClock.now + .seconds(10)
            while try await platform.blobFiles().contains(where: { $0.hasPrefix(prefix) }),
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await !platform.blobFiles().contains { $0.hasPrefix(prefix) })
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func aPartCanBeReplacedAndCompletingTwiceAnswersTheSameFile(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(100_000)
            let plan = try await platform.plan(content.count, token: token)
            // First send wrong bytes of the right size for part 1, then the right ones: the second replaces the first.
            let wrong = testContent(64 << 10, seed: 7)
            let first = try await platform.send("PUT", plan.parts[0].presignedURL, body: wrong)
            #expect(first.status == 200)
            let etag1 = try await platform.putPart(1, of: content, plan: plan)
            #expect(etag1 != first.header("ETag"))
            let etag2 = try await platform.putPart(2, of: content, plan: plan)
            // The stale ETag of the replaced part is refused, naming the part.
            let stale = try await platform.complete(plan, etags: [1: first.header("ETag")!, 2: etag2], token: token)
            #expect(stale.status == 400)
            #expect(stale.errorMessage.hasPrefix("part 1: ETag"))

            let done = try await platform.complete(plan, etags: [1: etag1, 2: etag2], token: token)
            #expect(done.status == 200)
            let again = try await platform.complete(plan, etags: [1: etag1, 2: etag2], token: token)
            #expect(again.status == 200)
            #expect(try again.decode(CompleteUploadResponse.self).fileID == plan.fileID)
            let bytes = try await platform.send("GET", try again.decode(CompleteUploadResponse.self).downloadURL)
            #expect(bytes.data == content)

            // Once completed, parts can no longer change.
            let late = try await platform.send("PUT", plan.parts[1].presignedURL, body: content[65536...])
            #expect(late.status == 409)
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func listingPartsResumesAnInterruptedUpload(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(200_000)
            let plan = try await platform.plan(content.count, token: token)
            let etag2 = try await platform.putPart(2, of: content, plan: plan)

            let listing = try await platform.send(
                "GET", "/open/partner/files/upload/\(plan.uploadID)/parts", token: token)
            #expect(listing.status == 200)
            let status = try listing.decode(UploadStatus.self)
            #expect(status.state == "open")
            #expect(status.partCount == 4)
            #expect(status.parts.map(\.partNumber) == [2])
            #expect(status.parts.first?.etag == etag2)
            #expect(status.parts.first?.size == 65536)
            #expect(status.pending.map(\.partNumber) == [1, 3, 4])

            // Upload the rest through the fresh URLs and complete with the listed ETag.
            var etags = [2: etag2]
            for pending in status.pending {
                let start = (pending.partNumber - 1) * plan.chunkSize
                let response = try await platform.send(
                    "PUT", pending.presignedURL, body: content[start..<min(start + plan.chunkSize, content.count)])
                etags[pending.partNumber] = response.header("ETag")
            }
            let done = try await platform.complete(plan, etags: etags, token: token)
            #expect(done.status == 200)
            let bytes = try await platform.send("GET", try done.decode(CompleteUploadResponse.self).downloadURL)
            #expect(bytes.data == content)
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func abortDiscardsTheParts(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(70_000)
            let plan = try await platform.plan(content.count, token: token)
            _ = try await platform.putPart(1, of: content, plan: plan)
            let abort = try await platform.send("DELETE", "/open/partner/files/upload/\(plan.uploadID)", token: token)
            #expect(abort.status == 204)
            #expect(try await !platform.blobFiles().contains { $0.hasPrefix("uploads/\(plan.uploadID)") })
            let listing = try await platform.send(
                "GET", "/open/partner/files/upload/\(plan.uploadID)/parts", token: token)
            #expect(listing.status == 404)
            let put = try await platform.send("PUT", plan.parts[1].presignedURL, body: content[65536...])
            #expect(put.status == 404)
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func abandonedUploadsAreCollected(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend, { $0.uploadMaxAge = .seconds(1) }) { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(70_000)
            let plan = try await platform.plan(content.count, token: token)
            // The part is stored (200 with its ETag). Whether its blob is still there by the time the test looks
            // depends on the machine: the sweep may already have found the upload idle for a second.
            _ = try await platform.putPart(1, of: content, plan: plan)
            let prefix = "uploads/\(plan.uploadID)"
            // Idle for more than a second: the background sweep (every 250 ms here) deletes parts and rows.
            let deadline = ContinuousClock.now + .seconds(10)
            var listing = try await platform.send(
                "GET", "/open/partner/files/upload/\(plan.uploadID)/parts", token: token)
            while try await platform.blobFiles().contains(where: { $0.hasPrefix(prefix) }) || listing.status != 404,
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(100))
                listing = try await platform.send(
                    "GET", "/open/partner/files/upload/\(plan.uploadID)/parts", token: token)
            }
            #expect(try await !platform.blobFiles().contains { $0.hasPrefix(prefix) })
            #expect(listing.status == 404)
        }
    }
}

/// The seed's `UploadPlan` decoding (PascalCase keys).
struct SeedUploadPlan: Decodable, Sendable {
    let fileId: String
    let uploadId: String
    let chunkSize: Int
    let parts: [Part]

    struct Part: Decodable, Sendable {
        let partNumber: Int
        let presignedUrl: String
        enum CodingKeys: String, CodingKey { case partNumber = "PartNumber", presignedUrl = "PresignedUrl" }
    }
    enum CodingKeys: String, CodingKey {
        case fileId = "FileId", uploadId = "UploadId", chunkSize = "ChunkSize", parts = "Parts"
    }
}
