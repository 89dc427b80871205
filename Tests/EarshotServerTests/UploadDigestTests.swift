import EarshotAPI
import EarshotCrypto
import EarshotServerTestSupport
import EarshotStore
import Foundation
import Synchronization
import Testing

@testable import EarshotServer

/// The file's SHA-256 is computed as parts arrive (a running digest saved with each part), so completion does not
/// read the file again; the recorded digest is still the SHA-256 of exactly the stored bytes.
@Suite struct UploadDigestTests {
    /// Part numbers whose row holds a running SHA-256 state (read from the platform's database file).
    static func digestedParts(_ platform: TestPlatform, upload: String) async throws -> [Int] {
        let store = try await SQLiteMetadataStore(
            configuration: .init(
                location: .file(URL(fileURLWithPath: platform.configuration.resolvedDatabasePath)),
                schema: ServerSchema.components))
        defer { Task { await store.close() } }
        return try await store.read { db in
            try db.query(
                "SELECT part_number FROM upload_parts WHERE upload_id = ? AND running_sha256 IS NOT NULL "
                    + "ORDER BY part_number", upload
            ).map { try $0.decode("part_number", as: Int.self) }
        }
    }

    static func completeAndCheck(
        _ platform: TestPlatform, _ plan: UploadPlan, _ etags: [Int: String], content: Data, token: String
    ) async throws {
        let done = try await platform.complete(plan, etags: etags, token: token)
        try #require(done.status == 200, "\(done.text)")
        let info = try await platform.send("GET", "/open/partner/files/\(plan.fileID)", token: token)
        #expect(try info.decode(FileInfo.self).sha256 == DigestAlgorithm.sha256.hash(content).hex)
        #expect(try info.decode(FileInfo.self).size == content.count)
        let bytes = try await platform.send("GET", try done.decode(CompleteUploadResponse.self).downloadURL)
        #expect(bytes.data == content)
    }

    @Test func partsSentInOrderAreDigestedAsTheyArrive() async throws {
        try await TestPlatform.with { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(5 * (64 << 10) + 1234)  // 6 parts, a short last one
            let plan = try await platform.plan(content.count, token: token)
            var etags: [Int: String] = [:]
            for number in 1...6 {
                etags[number] = try await platform.putPart(number, of: content, plan: plan)
                #expect(try await Self.digestedParts(platform, upload: plan.uploadID) == Array(1...number))
            }
            try await Self.completeAndCheck(platform, plan, etags, content: content, token: token)
        }
    }

    @Test func partsSentOutOfOrderAreFoldedInOnceTheGapCloses() async throws {
        try await TestPlatform.with { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(5 * (64 << 10) + 77)
            let plan = try await platform.plan(content.count, token: token)
            var etags: [Int: String] = [:]
            for number in [3, 2, 5] { etags[number] = try await platform.putPart(number, of: content, plan: plan) }
            #expect(try await Self.digestedParts(platform, upload: plan.uploadID) == [])  // part 1 is missing
            etags[1] = try await platform.putPart(1, of: content, plan: plan)
            #expect(try await Self.digestedParts(platform, upload: plan.uploadID) == [1, 2, 3])  // 4 is missing
            etags[6] = try await platform.putPart(6, of: content, plan: plan)
            etags[4] = try await platform.putPart(4, of: content, plan: plan)
            #expect(try await Self.digestedParts(platform, upload: plan.uploadID) == Array(1...6))
            try await Self.completeAndCheck(platform, plan, etags, content: content, token: token)
        }
    }

    @Test func completionDigestsTheTailTheChainDoesNotCover() async throws {
        try await TestPlatform.with { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(4 * (64 << 10))
            let plan = try await platform.plan(content.count, token: token)
            var etags: [Int: String] = [:]
            for number in [1, 3, 4] { etags[number] = try await platform.putPart(number, of: content, plan: plan) }
            // Remove part 2's state after it arrives, as if the catch-up had been interrupted: completion digests
            // parts 2-4 itself and still records the right digest.
            etags[2] = try await platform.putPart(2, of: content, plan: plan)
            let store = try await SQLiteMetadataStore(
                configuration: .init(
                    location: .file(URL(fileURLWithPath: platform.configuration.resolvedDatabasePath)),
                    schema: ServerSchema.components))
            try await store.write { db in
                try db.execute(
                    "UPDATE upload_parts SET running_sha256 = NULL WHERE upload_id = ? AND part_number >= 2",
                    plan.uploadID)
            }
            await store.close()
            #expect(try await Self.digestedParts(platform, upload: plan.uploadID) == [1])
            try await Self.completeAndCheck(platform, plan, etags, content: content, token: token)
        }
    }

    @Test func aReplacedPartResetsTheDigestFromThatPartOn() async throws {
        try await TestPlatform.with { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(3 * (64 << 10))
            let plan = try await platform.plan(content.count, token: token)
            var etags: [Int: String] = [:]
            for number in 1...3 { etags[number] = try await platform.putPart(number, of: content, plan: plan) }
            // Part 2 again with other bytes: the digest must describe the new bytes, not the first ones.
            var changed = content
            changed.replaceSubrange((64 << 10)..<(128 << 10), with: testContent(64 << 10, seed: 9))
            etags[2] = try await platform.putPart(2, of: changed, plan: plan)
            #expect(try await Self.digestedParts(platform, upload: plan.uploadID) == [1, 2, 3])
            try await Self.completeAndCheck(platform, plan, etags, content: changed, token: token)
        }
    }

    @Test func versionsOfOnePartSentAtOnceLeaveOneWholeVersion() async throws {
        try await TestPlatform.with { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(3 * (64 << 10))
            let plan = try await platform.plan(content.count, token: token)
            var etags: [Int: String] = [:]
            for number in [1, 3] { etags[number] = try await platform.putPart(number, of: content, plan: plan) }
            // Part 2 in four versions at once (their bytes reach the disk side by side, before the upload's lock):
            // one version must win whole (its bytes, its row, its digest), whichever is stored last.
            let versions = (0..<4).map { seed in
                var version = content
                version.replaceSubrange((64 << 10)..<(128 << 10), with: testContent(64 << 10, seed: UInt64(20 + seed)))
                return version
            }
            let answered = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (index, version) in versions.enumerated() {
                    group.addTask { (index, try await platform.putPart(2, of: version, plan: plan)) }
                }
                return try await group.reduce(into: [String: Int]()) { $0[$1.1] = $1.0 }
            }
            #expect(answered.count == 4)
            let listing = try await platform.send(
                "GET", "/open/partner/files/upload/\(plan.uploadID)/parts", token: token)
            let stored = try #require(try listing.decode(UploadStatus.self).parts.first { $0.partNumber == 2 })
            let winner = try #require(answered[stored.etag], "the stored ETag \(stored.etag) was never answered")
            etags[2] = stored.etag
            #expect(try await Self.digestedParts(platform, upload: plan.uploadID) == [1, 2, 3])
            try await Self.completeAndCheck(platform, plan, etags, content: versions[winner], token: token)
        }
    }

    @Test func theRunningDigestSurvivesAServerRestartBetweenParts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-restart-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let content = testContent(4 * (64 << 10) + 5)
        let box = Mutex<(UploadPlan, [Int: String], String, String)?>(nil)
        try await TestPlatform.with(dataDirectory: directory) { platform in
            let partner = try await platform.createPartner()
            let token = try await platform.partnerToken(partner)
            let plan = try await platform.plan(content.count, token: token)
            var etags: [Int: String] = [:]
            for number in 1...2 { etags[number] = try await platform.putPart(number, of: content, plan: plan) }
            box.withLock { $0 = (plan, etags, partner.clientID, partner.clientSecret) }
        }
        let (firstPlan, first, clientID, secret) = try #require(box.withLock { $0 })
        try await TestPlatform.with(dataDirectory: directory) { platform in
            // The restarted server listens on another port; the signed part URLs stay valid (same keys).
            var plan = firstPlan
            for index in plan.parts.indices {
                var url = try #require(URLComponents(string: plan.parts[index].presignedURL))
                url.port = platform.base.port
                plan.parts[index].presignedURL = try #require(url.string)
            }
            #expect(try await Self.digestedParts(platform, upload: plan.uploadID) == [1, 2])
            let response = try await platform.send(
                "POST", APIPath.partnerToken, json: ["client_id": clientID, "client_secret": secret])
            let token = try response.decode(TokenResponse.self).accessToken
            var etags = first
            for number in 3...5 { etags[number] = try await platform.putPart(number, of: content, plan: plan) }
            #expect(try await Self.digestedParts(platform, upload: plan.uploadID) == Array(1...5))
            try await Self.completeAndCheck(platform, plan, etags, content: content, token: token)
        }
    }

    @Test func aPartDamagedOnDiskIsDetectedAtCompletion() async throws {
        try await TestPlatform.with { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(3 * (64 << 10))
            let plan = try await platform.plan(content.count, token: token)
            var etags: [Int: String] = [:]
            for number in 1...3 { etags[number] = try await platform.putPart(number, of: content, plan: plan) }
            // Flip bytes of part 2 in place, as a failing disk or a stray process would.
            let path = platform.configuration.resolvedBlobDirectory + "/uploads/\(plan.uploadID)/part-00002"
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            try handle.seek(toOffset: 1000)
            try handle.write(contentsOf: Data(repeating: 0xA5, count: 16))
            try handle.close()
            let refused = try await platform.complete(plan, etags: etags, token: token)
            #expect(refused.status == 409)
            #expect(refused.errorMessage.contains("part 2"), "\(refused.text)")
            #expect(refused.errorMessage.contains("PUT part 2 again"), "\(refused.text)")
            // Sending part 2 again repairs the upload.
            etags[2] = try await platform.putPart(2, of: content, plan: plan)
            try await Self.completeAndCheck(platform, plan, etags, content: content, token: token)
        }
    }
}
