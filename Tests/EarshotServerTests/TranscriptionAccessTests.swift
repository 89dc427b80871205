import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// Access rules of transcription tasks, without decoding (no workers): partner-only calls, tenancy, idempotency
/// keys, validation, the no-SSRF rule for `file_url`, and paging.
@Suite struct TranscriptionAccessTests {
    static let noWorkers: @Sendable (inout ServerConfiguration) -> Void = { $0.workers = 0 }

    @Test func userTokensCannotUseTaskCalls() async throws {
        try await TestPlatform.with(Self.noWorkers) { platform in
            let (_, partnerToken, userToken) = try await platform.newUser()
            let file = try await platform.upload(testContent(1000), token: userToken)
            let denied = try await platform.createTask(
                ["file_url": file.downloadURL, "model": "asr-fast"], token: userToken)
            #expect(denied.status == 403)
            #expect(denied.errorCode == "FORBIDDEN")
            let task = try await platform.createTask(
                ["file_url": file.downloadURL, "model": "asr-fast"], token: partnerToken
            ).decode(TranscriptionTask.self)
            for (method, path) in [
                ("GET", "/open/partner/transcriptions/\(task.taskID)"), ("GET", "/open/partner/transcriptions"),
                ("POST", "/open/partner/transcriptions/\(task.taskID)/revoke"),
                ("GET", "/open/partner/transcriptions/\(task.taskID)/export?format=srt"),
            ] {
                let response = try await platform.send(method, path, token: userToken)
                #expect(response.status == 403, "\(method) \(path)")
            }
            let anonymous = try await platform.send("GET", "/open/partner/transcriptions/\(task.taskID)")
            #expect(anonymous.status == 401)
        }
    }

    @Test func anotherTenantsTaskLooksMissing() async throws {
        try await TestPlatform.with(Self.noWorkers) { platform in
            let (_, tokenA, _) = try await platform.newUser(partner: "A")
            let (_, tokenB, _) = try await platform.newUser(partner: "B")
            let fileA = try await platform.upload(testContent(1000), token: tokenA)
            let task = try await platform.createTask(
                ["file_url": fileA.fileID, "model": "asr-fast"], token: tokenA
            ).decode(TranscriptionTask.self)
            let missing = "task_aaaaaaaaaaaaaaaaaaaa"
            for suffix in ["", "/export?format=srt"] {
                let theirs = try await platform.send(
                    "GET", "/open/partner/transcriptions/\(task.taskID)\(suffix)", token: tokenB)
                let none = try await platform.send(
                    "GET", "/open/partner/transcriptions/\(missing)\(suffix)", token: tokenB)
                #expect(theirs.status == 404)
                #expect(theirs.errorMessage.replacingOccurrences(of: task.taskID, with: missing) == none.errorMessage)
            }
            let revoke = try await platform.send(
                "POST", "/open/partner/transcriptions/\(task.taskID)/revoke", token: tokenB)
            #expect(revoke.status == 404)
            #expect(try await platform.task(task.taskID, token: tokenA).status == .pending)
            // B cannot transcribe A's file either.
            let steal = try await platform.createTask(
                ["file_url": fileA.downloadURL, "model": "asr-fast"], token: tokenB)
            #expect(steal.status == 404)
            let list = try await platform.send("GET", APIPath.transcriptions, token: tokenB)
            #expect(try list.decode(TranscriptionTaskList.self).tasks.isEmpty)
        }
    }

    @Test func idempotencyKeysReplayOrConflict() async throws {
        try await TestPlatform.with(Self.noWorkers) { platform in
            let (_, token, _) = try await platform.newUser()
            let file = try await platform.upload(testContent(1000), token: token)
            let body: [String: Any] = ["file_url": file.fileID, "model": "asr-fast", "language": "en"]
            let first = try await platform.createTask(body, token: token, idempotencyKey: "order-1")
            let second = try await platform.createTask(body, token: token, idempotencyKey: "order-1")
            #expect(first.status == 201)
            #expect(second.status == 200)
            #expect(second.header("Idempotent-Replayed") == "true")
            #expect(try first.decode(TranscriptionTask.self).taskID == second.decode(TranscriptionTask.self).taskID)
            var changed = body
            changed["model"] = "asr-pro"
            let conflict = try await platform.createTask(changed, token: token, idempotencyKey: "order-1")
            #expect(conflict.status == 409)
            #expect(conflict.errorCode == "CONFLICT")
            #expect(conflict.errorMessage.contains("Idempotency-Key"))
            let other = try await platform.createTask(body, token: token, idempotencyKey: "order-2")
            #expect(other.status == 201)
            let list = try await platform.send("GET", APIPath.transcriptions, token: token)
            #expect(try list.decode(TranscriptionTaskList.self).tasks.count == 2)
        }
    }

    @Test(arguments: [
        "http://169.254.169.254/latest/meta-data/", "file:///etc/passwd", "https://example.com/a.wav",
        "http://127.0.0.1:1/open/partner/files/file_aaaaaaaaaaaaaaaaaaaa/download",
    ])
    func foreignURLsAreRefusedWithoutBeingFetched(url: String) async throws {
        try await TestPlatform.with(Self.noWorkers) { platform in
            let (_, token, _) = try await platform.newUser()
            let response = try await platform.createTask(["file_url": url, "model": "asr-fast"], token: token)
            #expect(response.status == 400)
            #expect(response.errorMessage.contains("never fetched"), "\(response.errorMessage)")
        }
    }

    @Test func invalidRequestsNameTheField() async throws {
        try await TestPlatform.with(Self.noWorkers) { platform in
            let (_, token, _) = try await platform.newUser()
            let file = try await platform.upload(testContent(1000), token: token)
            let cases: [([String: Any], Int, String)] = [
                (["file_url": file.fileID, "model": "whisper-9"], 400, "model"),
                (["file_url": file.fileID, "model": "asr-fast", "task": "summarize"], 400, "task"),
                (["file_url": file.fileID, "model": "asr-fast", "language": "klingon"], 400, "language"),
                (["file_url": file.fileID, "model": "asr-fast", "callback_url": "ftp://x"], 400, "callback_url"),
                (["file_url": "file_aaaaaaaaaaaaaaaaaaaa", "model": "asr-fast"], 404, "no file"),
                (["model": "asr-fast"], 400, "file_url"),
            ]
            for (body, status, needle) in cases {
                let response = try await platform.createTask(body, token: token)
                #expect(response.status == status, "\(body)")
                #expect(response.errorMessage.contains(needle), "\(response.errorMessage)")
            }
        }
    }

    @Test func listingPagesWithACursorAndRevokesQueuedTasks() async throws {
        try await TestPlatform.with(Self.noWorkers) { platform in
            let (_, token, _) = try await platform.newUser()
            let file = try await platform.upload(testContent(1000), token: token)
            var ids: [String] = []
            for index in 0..<5 {
                let task = try await platform.createTask(
                    ["file_url": file.fileID, "model": "asr-fast", "user_id": index.isMultiple(of: 2) ? "u1" : "u2"],
                    token: token
                ).decode(TranscriptionTask.self)
                ids.append(task.taskID)
            }
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await platform.send(
                    "GET", "/open/partner/transcriptions?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""),
                    token: token
                ).decode(TranscriptionTaskList.self)
                #expect(page.tasks.count <= 2)
                seen += page.tasks.map(\.taskID)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(Set(seen) == Set(ids))
            #expect(seen.count == 5)
            let u1 = try await platform.send("GET", "/open/partner/transcriptions?user_id=u1", token: token)
            #expect(try u1.decode(TranscriptionTaskList.self).tasks.count == 3)
            let revoked = try await platform.send("POST", "/open/partner/transcriptions/\(ids[0])/revoke", token: token)
            #expect(try revoked.decode(TranscriptionTask.self).status == .revoked)
            let onlyRevoked = try await platform.send(
                "GET", "/open/partner/transcriptions?status=REVOKED", token: token)
            #expect(try onlyRevoked.decode(TranscriptionTaskList.self).tasks.map(\.taskID) == [ids[0]])
            let pending = try await platform.send("GET", "/open/partner/transcriptions?status=pending", token: token)
            #expect(try pending.decode(TranscriptionTaskList.self).tasks.count == 4)
            let running = try await platform.send("GET", "/open/partner/transcriptions?status=RUNNING", token: token)
            #expect(try running.decode(TranscriptionTaskList.self).tasks.isEmpty)
            let unknown = try await platform.send("GET", "/open/partner/transcriptions?status=DONE", token: token)
            #expect(unknown.status == 400)
            let badCursor = try await platform.send("GET", "/open/partner/transcriptions?cursor=zzz", token: token)
            #expect(badCursor.status == 400)
        }
    }
}
