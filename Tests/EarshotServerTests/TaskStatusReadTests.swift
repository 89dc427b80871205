import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// `GET /open/partner/transcriptions/{task_id}` is answered on the HTTP worker thread when the store can read at
/// once, with a token decoded once and a finished task's JSON reused. None of that may change an answer: these
/// checks run after the token and the JSON are cached.
@Suite struct TaskStatusReadTests {
    @Test func cachedTokensAndTaskJSONStillAnswerEveryCheck() async throws {
        try await TestPlatform.with({ $0.workers = 0 }) { platform in
            let (partner, token, _) = try await platform.newUser(partner: "A")
            let (_, otherToken, _) = try await platform.newUser(partner: "B")
            let file = try await platform.upload(testContent(1000), token: token)
            let created = try await platform.createTask(["file_url": file.fileID, "model": "asr-fast"], token: token)
            let id = try created.decode(TranscriptionTask.self).taskID
            let path = "/open/partner/transcriptions/\(id)"

            let pending = try await platform.send("GET", path, token: token)
            #expect(try pending.decode(TranscriptionTask.self).status == .pending)
            #expect(pending.header("Content-Type") == "application/json")
            #expect(try await platform.send("POST", path + "/revoke", token: token).status == 200)
            // A finished task: the second read is served from the kept JSON, byte for byte the same.
            let first = try await platform.send("GET", path, token: token)
            let second = try await platform.send("GET", path, token: token)
            #expect(try first.decode(TranscriptionTask.self).status == .revoked)
            #expect(first.data == second.data)
            #expect(first.header("X-Request-Id") != second.header("X-Request-Id"))

            // Tenancy, malformed ids and forged signatures are checked on every read.
            let theirs = try await platform.send("GET", path, token: otherToken)
            #expect(theirs.status == 404 && theirs.errorMessage == "no transcription task \(id)")
            #expect(try await platform.send("GET", path + "x", token: token).status == 404)
            let forged = String(token.dropLast(4)) + (token.hasSuffix("AAAA") ? "BBBB" : "AAAA")
            let refused = try await platform.send("GET", path, token: forged)
            #expect(refused.status == 401 && refused.errorMessage.contains("signature"), "\(refused.text)")
            #expect(try await platform.send("GET", path).status == 401)

            // Disabling the partner revokes the (cached) token at once.
            try await PartnerAdministration(configuration: platform.configuration).setStatus(
                partner.clientID, active: false)
            let revoked = try await platform.send("GET", path, token: token)
            #expect(revoked.status == 401, "\(revoked.text)")
        }
    }

    @Test func manyConcurrentReadsAllAnswerTheSame() async throws {
        try await TestPlatform.with({ $0.workers = 0 }) { platform in
            let (_, token, _) = try await platform.newUser()
            let file = try await platform.upload(testContent(1000), token: token)
            let id = try await platform.createTask(["file_url": file.fileID, "model": "asr-fast"], token: token)
                .decode(TranscriptionTask.self).taskID
            let path = "/open/partner/transcriptions/\(id)"
            // More parallel requests than reader connections: some are read inline, the rest fall back.
            let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        let response = try await platform.send("GET", path, token: token)
                        #expect(response.status == 200)
                        return response.data
                    }
                }
                return try await group.reduce(into: Set<Data>()) { $0.insert($1) }
            }
            #expect(bodies.count == 1)
        }
    }
}
