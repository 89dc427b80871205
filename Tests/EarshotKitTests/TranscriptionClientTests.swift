import EarshotAPI
import EarshotHTTP
import EarshotKit
import Foundation
import Synchronization
import Testing

/// TranscriptionClient against a stub of the task API that answers EarshotAPI's wire shapes: request bodies,
/// idempotency, polling until a final state, revoke, list, export and the OpenAI-compatible multipart call.
/// (``TranscriptionEndToEndTests`` runs the same client against the real server and model.)
@Suite struct TranscriptionClientTests {
    /// What the stub saw, and per-task scripts of states to answer successive polls with.
    final class Stub: Sendable {
        struct State {
            var creates: [(key: String?, body: [UInt8], auth: String?)] = []
            var polls: [String: Int] = [:]
            var revoked: Set<String> = []
            var failNextGet = 0
            var multipart: String = ""
            var listQuery: [String: String] = [:]
        }
        let state = Mutex(State())
        let scripts: [String: [String]] = [
            "task_ok": ["PENDING", "RECEIVED", "STARTED", "PROGRESS", "SUCCESS"],
            "task_fail": ["PENDING", "FAILURE"],
            "task_slow": ["PENDING"],
        ]

        /// A task as the server encodes it (`TranscriptionTask`), with `extra` JSON members appended.
        static func task(_ id: String, _ status: String, _ extra: String = "") -> String {
            #"{"task_id":"\#(id)","status":"\#(status)","progress":0,"model":"asr-pro","file_id":"file_1","#
                + #""attempts":1,"created_at_ms":1700000000000,"updated_at_ms":1700000000000\#(extra)}"#
        }

        func router() -> Router {
            let router = Router()
            router.post("/open/partner/transcriptions") { request, _ in
                let body = request.bytes
                let key = request.headers["Idempotency-Key"]
                let auth = request.headers["Authorization"]
                self.state.withLock { $0.creates.append((key, body, auth)) }
                return .text(Self.task("task_ok", "PENDING"), contentType: "application/json")
            }
            router.get("/open/partner/transcriptions") { request, _ in
                self.state.withLock { state in
                    for name in ["cursor", "limit", "status", "user_id"] { state.listQuery[name] = request.query[name] }
                }
                return .text(
                    #"{"tasks":[\#(Self.task("task_ok", "SUCCESS"))],"next_cursor":"c2"}"#,
                    contentType: "application/json")
            }
            router.get("/open/partner/transcriptions/{task_id}") { request, context in
                let id = try context.parameters.require("task_id")
                let (fail, poll, revoked) = self.state.withLock { state -> (Bool, Int, Bool) in
                    if state.failNextGet > 0 {
                        state.failNextGet -= 1
                        return (true, 0, false)
                    }
                    state.polls[id, default: 0] += 1
                    return (false, state.polls[id]!, state.revoked.contains(id))
                }
                if fail { return .text("busy", status: 503) }
                guard let script = self.scripts[id] else {
                    throw HTTPError(404, code: "NOT_FOUND", message: "no transcription \(id)")
                }
                let status = revoked ? "REVOKED" : script[min(poll, script.count) - 1]
                var extra = ""
                if status == "SUCCESS" {
                    extra = #","segments":[{"speaker":"Speaker 1","start_ms":0,"end_ms":4600,"text":"hello"}]"#
                }
                if status == "FAILURE" {
                    extra = #","error":"not audio: the file has no audio stream""#
                }
                if status == "REVOKED" {
                    extra = #","error":"revoked by the partner""#
                }
                return .text(Self.task(id, status, extra), contentType: "application/json")
            }
            router.post("/open/partner/transcriptions/{task_id}/revoke") { _, context in
                let id = try context.parameters.require("task_id")
                self.state.withLock { _ = $0.revoked.insert(id) }
                return .text(
                    Self.task(id, "REVOKED", #","error":"revoked by the partner""#), contentType: "application/json")
            }
            router.get("/open/partner/transcriptions/{task_id}/export") { request, _ in
                .text("1\n00:00:00,000 --> 00:00:04,600\nhello\n[format=\(request.query["format"] ?? "")]")
            }
            router.post("/v1/audio/transcriptions", body: .buffered(limit: 8 << 20)) { request, _ in
                let text = String(decoding: request.bytes, as: UTF8.self)
                self.state.withLock { $0.multipart = (request.headers["Content-Type"] ?? "") + "\n" + text }
                return .text(
                    #"{"text":"hello","language":"en","duration":4.6,"segments":[{"id":0,"start":0,"end":4.6,"text":"hello"}]}"#,
                    contentType: "application/json")
            }
            return router
        }
    }

    func withStub(_ body: @Sendable (Stub, TranscriptionClient) async throws -> Void) async throws {
        let stub = Stub()
        let server = HTTPServer(
            router: stub.router(), configuration: .init(port: 0, shutdownGracePeriod: .milliseconds(100)))
        let running = Task { try await server.run() }
        defer { running.cancel() }
        let port = try await server.waitUntilListening()
        let client = EarshotClient(
            configuration: .init(
                baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: "ptok",
                retry: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(5))))
        try await body(stub, TranscriptionClient(client: client))
    }

    static let fast = PollPolicy(initialInterval: .milliseconds(5), maximumInterval: .milliseconds(20))

    @Test func createSendsTheBodyTheBearerTokenAndAnIdempotencyKey() async throws {
        try await withStub { stub, transcriptions in
            let task = try await transcriptions.create(
                .init(
                    fileURL: "file_1", model: "asr-pro", language: "zh", task: "transcribe",
                    diarization: .init(enabled: true, speakers: 2), callbackURL: "https://partner/hook",
                    userID: "user-42"),
                idempotencyKey: "rec-42")
            #expect(task.taskID == "task_ok" && task.status == .pending && task.fileID == "file_1")
            _ = try await transcriptions.create(.init(fileURL: "https://x/file", model: "asr-fast"))
            let creates = stub.state.withLock { $0.creates }.map { create in
                (
                    key: create.key, auth: create.auth,
                    body: (try? JSONSerialization.jsonObject(with: Data(create.body))) as? [String: Any] ?? [:]
                )
            }
            #expect(creates.count == 2)
            #expect(creates[0].key == "rec-42")
            #expect(creates[0].auth == "Bearer ptok")
            #expect(creates[0].body["file_url"] as? String == "file_1")
            #expect(creates[0].body["model"] as? String == "asr-pro")
            #expect(creates[0].body["language"] as? String == "zh")
            #expect(creates[0].body["task"] as? String == "transcribe")
            let diarization = creates[0].body["diarization"] as? [String: Any]
            #expect(diarization?["enabled"] as? Bool == true && diarization?["speakers"] as? Int == 2)
            #expect(creates[0].body["callback_url"] as? String == "https://partner/hook")
            #expect(creates[0].body["user_id"] as? String == "user-42")
            #expect(creates[0].body["file_id"] == nil && creates[0].body["webhook_url"] == nil)  // the old guesses
            #expect(creates[1].key?.isEmpty == false && creates[1].key != "rec-42")  // a fresh key by default
            #expect(creates[1].body["file_url"] as? String == "https://x/file")
        }
    }

    @Test func waitPollsThroughEveryStateUntilSuccess() async throws {
        try await withStub { stub, transcriptions in
            stub.state.withLock { $0.failNextGet = 1 }  // a transient 503 on the way is retried
            let done = try await transcriptions.wait(for: "task_ok", policy: Self.fast)
            #expect(done.status == .success)
            #expect(done.segments == [TranscriptSegment(speaker: "Speaker 1", startMs: 0, endMs: 4600, text: "hello")])
            #expect(stub.state.withLock { $0.polls["task_ok"] } == 5)
        }
    }

    @Test func waitThrowsOnFailureRevokeTimeoutAndMissingTask() async throws {
        try await withStub { stub, transcriptions in
            let failed = await #expect(throws: EarshotError.self) {
                try await transcriptions.wait(for: "task_fail", policy: Self.fast)
            }
            #expect(failed?.code == .taskFailed)
            #expect(failed?.message.contains("not audio: the file has no audio stream") == true)

            let revoked = try await transcriptions.revoke("task_slow")
            #expect(revoked.status == .revoked && revoked.status.isFinal)
            let afterRevoke = await #expect(throws: EarshotError.self) {
                try await transcriptions.wait(for: "task_slow", policy: Self.fast)
            }
            #expect(afterRevoke?.code == .taskRevoked)
            #expect(afterRevoke?.message.contains("revoked by the partner") == true)

            let missing = await #expect(throws: EarshotError.self) { try await transcriptions.get("task_nope") }
            #expect(missing?.code == .notFound && missing?.status == 404)
            #expect(missing?.requestID?.hasPrefix("req_") == true)
        }
    }

    @Test func waitTimesOutAndIsCancellable() async throws {
        try await withStub { stub, transcriptions in
            stub.state.withLock { $0.revoked = [] }
            let timeout = await #expect(throws: EarshotError.self) {
                try await transcriptions.wait(
                    for: "task_slow", policy: .init(initialInterval: .milliseconds(10), timeout: .milliseconds(50)))
            }
            #expect(timeout?.code == .unavailable)

            let waiting = Task {
                try await transcriptions.wait(for: "task_slow", policy: .init(initialInterval: .seconds(30)))
            }
            try await Task.sleep(for: .milliseconds(50))
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
        }
    }

    @Test func listSendsTheFiltersAndDecodesThePage() async throws {
        try await withStub { stub, transcriptions in
            let page = try await transcriptions.list(cursor: "c1", limit: 10, status: .success, userID: "user 42")
            #expect(page.tasks.map(\.taskID) == ["task_ok"] && page.nextCursor == "c2")
            #expect(
                stub.state.withLock { $0.listQuery } == [
                    "cursor": "c1", "limit": "10", "status": "SUCCESS", "user_id": "user 42",
                ])
            _ = try await transcriptions.list()
            #expect(stub.state.withLock { $0.listQuery }.isEmpty)
        }
    }

    @Test func pollIntervalsGrowToTheMaximum() {
        let policy = PollPolicy(initialInterval: 1, maximumInterval: 5, multiplier: 2)
        #expect((1...5).map(policy.interval(afterPoll:)) == [1, 2, 4, 5, 5])
        let retry = RetryPolicy(initialDelay: 0.125, maximumDelay: 1, multiplier: 3)
        #expect((1...4).map(retry.delay(afterAttempt:)) == [0.125, 0.375, 1, 1])
    }

    /// Code written against the `Duration` spelling (iOS 16+ / macOS 13+, Linux) still compiles and means the same.
    @Test func durationSpellingsMatchTheSecondsOnes() {
        #expect(
            PollPolicy(initialInterval: .milliseconds(500), timeout: .seconds(900))
                == PollPolicy(initialInterval: 0.5, timeout: 900))
        #expect(PollPolicy() == PollPolicy(initialInterval: .seconds(1), maximumInterval: .seconds(10)))
        #expect(
            RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(250), maximumDelay: .seconds(8))
                == RetryPolicy(maxAttempts: 4))
        #expect(WebhookVerifier(secret: "s", tolerance: .seconds(90)).tolerance == 90)
        #expect(WebhookVerifier(secret: "s").tolerance == 300)
    }

    @Test func exportAndTheOpenAICompatibleCall() async throws {
        try await withStub { stub, transcriptions in
            let srt = try await transcriptions.export("task_ok", as: .srt)
            #expect(String(decoding: srt, as: UTF8.self).hasSuffix("[format=srt]"))

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kit-openai-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let audio = directory.appendingPathComponent("memo.wav")
            try Data("RIFF-audio-bytes".utf8).write(to: audio)
            let result = try await transcriptions.transcribe(fileAt: audio, model: "asr-fast", language: "en")
            #expect(result.text == "hello" && result.segments?.first?.end == 4.6)
            let sent = stub.state.withLock { $0.multipart }
            #expect(sent.hasPrefix("multipart/form-data; boundary="))
            #expect(sent.contains("name=\"model\"\r\n\r\nasr-fast\r\n"))
            #expect(sent.contains("name=\"response_format\"\r\n\r\nverbose_json\r\n"))
            #expect(sent.contains("name=\"file\"; filename=\"memo.wav\""))
            #expect(sent.contains("RIFF-audio-bytes"))
        }
    }
}
