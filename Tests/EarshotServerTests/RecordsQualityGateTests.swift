import EarshotAPI
import EarshotHTTP
import Foundation
import Testing

@testable import EarshotServer

/// The quality gates through the API with a configured provider (a local chat-completions stub at `llm-base-url`):
/// a bad translation ends the task `FAILURE` with `LOW_QUALITY_OUTPUT` and a message saying what to configure; a
/// good one succeeds; a summary whose model answers garbage succeeds as the extractive summary with warnings that
/// the task, the record detail and the Markdown export all show.
@Suite(.serialized, .enabled(if: TestAudio.modelsInstalled, "speech models not installed (run `make models`)"))
struct RecordsQualityGateTests {
    /// French-looking words, so that a "translation" made of them reads as French without repeating itself.
    static let frenchWords = [
        "le", "pays", "et", "la", "liberté", "de", "nous", "demande", "pour", "les", "citoyens", "du", "monde",
        "avec", "une", "nation", "qui", "fait", "des", "choses", "sur", "leur", "avenir", "dans", "cette", "paix",
    ]

    /// Answers chat completions as a good or bad translator (by the request's `model`), and every summary request
    /// with prose that is not the JSON asked for.
    static func provider() -> Router {
        let router = Router()
        router.post("/v1/chat/completions") { request, _ in
            let body = try JSONSerialization.jsonObject(with: Data(request.bytes)) as? [String: Any] ?? [:]
            let model = body["model"] as? String ?? ""
            let messages = body["messages"] as? [[String: Any]] ?? []
            let prompt = messages.last?["content"] as? String ?? ""
            guard prompt.contains("Translate") else {
                return .text(completion("Sure! The meeting went well."), contentType: "application/json")
            }
            let lines = prompt.split(separator: "\n").filter { $0.first?.isNumber == true }
            let items = lines.enumerated().map { index, line -> [String: Any] in
                let number = Int(line.prefix { $0.isNumber }) ?? index + 1
                let words = line.split(separator: " ").count - 1
                let text =
                    model == "bad"
                    ? "This is a French translation of the English sentence."
                    : (0..<max(2, words)).map { frenchWords[($0 * 7 + number * 3) % frenchWords.count] }
                        .joined(separator: " ") + "."
                return ["n": number, "text": text]
            }
            let answer = try JSONSerialization.data(withJSONObject: ["translations": items])
            return .text(completion(String(decoding: answer, as: UTF8.self)), contentType: "application/json")
        }
        return router
    }

    static func completion(_ content: String) -> String {
        let message = try! JSONSerialization.data(
            withJSONObject: ["choices": [["index": 0, "message": ["role": "assistant", "content": content]]]])
        return String(decoding: message, as: UTF8.self)
    }

    /// Runs `body` with a platform whose language model is the stub, named `model`.
    func withStub(model: String, _ body: @Sendable (TestPlatform) async throws -> Void) async throws {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, threadPoolSize: 2)
        configuration.shutdownGracePeriod = .seconds(1)
        let stub = HTTPServer(router: Self.provider(), configuration: configuration)
        let running = Task { try await stub.run() }
        defer { running.cancel() }
        let port = try await stub.waitUntilListening()
        try await TestPlatform.with({
            $0.llmBaseURL = "http://127.0.0.1:\(port)/v1"
            $0.llmModel = model
        }) { platform in try await body(platform) }
    }

    private func transcribedRecord(_ platform: TestPlatform) async throws -> (String, String) {
        let (_, _, user) = try await platform.newUser()
        let id = try await platform.createRecord(token: user, ["title": "Inaugural"]).record.recordID
        let transcribe = try await platform.send(
            "POST", platform.recordPath(APIPath.recordTasks, id), token: user, json: ["task_type": 0]
        ).decode(RecordTask.self)
        #expect(try await platform.waitForRecordTask(id, transcribe.taskID, token: user).status == .success)
        return (id, user)
    }

    private func run(_ platform: TestPlatform, _ id: String, _ user: String, _ body: [String: Any]) async throws
        -> RecordTask
    {
        let created = try await platform.send(
            "POST", platform.recordPath(APIPath.recordTasks, id), token: user, json: body)
        try #require(created.status == 201, "\(created.text)")
        return try await platform.waitForRecordTask(
            id, try created.decode(RecordTask.self).taskID, token: user, timeout: .seconds(60))
    }

    @Test func aBadTranslationFailsWithACodeAndWhatToConfigure() async throws {
        try await withStub(model: "bad") { platform in
            let (id, user) = try await transcribedRecord(platform)
            let task = try await run(platform, id, user, ["task_type": 2, "target_language": "fr"])
            #expect(task.status == .failure)
            #expect(task.errorCode == "LOW_QUALITY_OUTPUT")
            #expect(task.error?.contains("llm-base-url") == true, "\(task.error ?? "")")
            #expect(task.error?.contains("talk about the translation") == true)
            #expect(task.attempts == 1, "a model that cannot translate is not asked again")
            let detail = try await platform.send("GET", platform.recordPath(APIPath.record, id), token: user)
                .decode(RecordDetail.self)
            #expect(detail.translations["fr"] == nil, "a failed translation is never stored as the record's")
        }
    }

    @Test func aGoodTranslationSucceedsAndAGarbageSummaryFallsBackWithWarningsEverywhere() async throws {
        try await withStub(model: "good") { platform in
            let (id, user) = try await transcribedRecord(platform)
            let translated = try await run(platform, id, user, ["task_type": 2, "target_language": "fr"])
            #expect(translated.status == .success, "\(translated.error ?? "")")
            #expect(translated.errorCode == nil)

            let summarized = try await run(platform, id, user, ["task_type": 1])
            #expect(summarized.status == .success)
            let warnings = try #require(summarized.warnings, "the task shows why the summary is extractive")
            #expect(warnings.contains { $0.contains("the language model good failed") })

            let detail = try await platform.send("GET", platform.recordPath(APIPath.record, id), token: user)
                .decode(RecordDetail.self)
            #expect(detail.summary?.method == "extractive")
            #expect(detail.summary?.warnings == warnings)
            #expect(detail.translations["fr"]?.detectedLanguage == "fr")
            #expect(detail.tasks.first { $0.taskID == summarized.taskID }?.warnings == warnings)
            let note = try await platform.send(
                "GET", platform.recordPath(APIPath.recordExport, id) + "?format=md", token: user)
            #expect(note.text.contains("> ⚠ \(warnings[0])"))
        }
    }
}
