import EarshotHTTP
import Foundation
import Synchronization
import Testing

@testable import EarshotNotes

/// The chat-completions client against real HTTP servers on 127.0.0.1 that answer badly on purpose.
@Suite("Provider errors")
struct ProviderErrorTests {
    @Test("A good answer is returned; the API key, model and JSON schema are sent")
    func sendsRequest() async throws {
        let seen = Mutex<[String]>([])
        let router = Router()
        router.post("/v1/chat/completions") { request, _ in
            let body = try JSONSerialization.jsonObject(with: Data(request.bytes)) as? [String: Any] ?? [:]
            let format = body["response_format"] as? [String: Any]
            seen.withLock {
                $0 = [
                    request.headers["Authorization"] ?? "", body["model"] as? String ?? "",
                    format?["type"] as? String ?? "",
                ]
            }
            return .text(completion("Hallo"), contentType: "application/json")
        }
        let answer = try await withProvider(router) { base in
            let client = ChatCompletionsClient(configuration: .init(baseURL: base, apiKey: "sk-test", model: "tiny"))
            return try await client.complete(
                ChatRequest(messages: [.user("Hello")], maxTokens: 8, jsonSchema: #"{"type":"object"}"#))
        }
        #expect(answer == "Hallo")
        #expect(seen.withLock { $0 } == ["Bearer sk-test", "tiny", "json_schema"])
    }

    @Test("HTTP 500 is a providerError carrying the provider's message")
    func serverError() async throws {
        let router = Router()
        router.post("/v1/chat/completions") { _, _ in
            .text(#"{"error":{"message":"model overloaded"}}"#, status: .internalServerError)
        }
        let error = try await withProvider(router) { base in
            await #expect(throws: NotesError.self) {
                try await ChatCompletionsClient(configuration: .init(baseURL: base, model: "m"))
                    .complete(ChatRequest(messages: [.user("Hi")], maxTokens: 8))
            }
        }
        #expect(error?.code == .providerError)
        #expect(error?.message.contains("HTTP 500") == true)
        #expect(error?.message.contains("model overloaded") == true)
    }

    @Test("A 200 whose body is not a chat completion is an invalidResponse")
    func badJSON() async throws {
        let router = Router()
        router.post("/v1/chat/completions") { _, _ in .text("<html>gateway</html>") }
        router.post("/v2/v1/chat/completions") { _, _ in .text(#"{"choices": []}"#, contentType: "application/json") }
        try await withProvider(router) { base in
            let notJSON = await #expect(throws: NotesError.self) {
                try await ChatCompletionsClient(configuration: .init(baseURL: base, model: "m"))
                    .complete(ChatRequest(messages: [.user("Hi")], maxTokens: 8))
            }
            #expect(notJSON?.code == .invalidResponse)
            #expect(notJSON?.message.contains("<html>gateway") == true)
            let noChoice = await #expect(throws: NotesError.self) {
                try await ChatCompletionsClient(
                    configuration: .init(
                        baseURL: URL(string: base.absoluteString.replacingOccurrences(of: "/v1", with: "/v2/v1"))!,
                        model: "m")
                ).complete(ChatRequest(messages: [.user("Hi")], maxTokens: 8))
            }
            #expect(noChoice?.code == .invalidResponse)
        }
    }

    @Test("A provider slower than the timeout fails with timeout, within a few seconds")
    func timeout() async throws {
        let router = Router()
        router.post("/v1/chat/completions") { _, _ in
            try await Task.sleep(for: .seconds(20))
            return .text(completion("late"), contentType: "application/json")
        }
        try await withProvider(router) { base in
            let started = ContinuousClock.now
            let error = await #expect(throws: NotesError.self) {
                try await ChatCompletionsClient(configuration: .init(baseURL: base, model: "m", timeout: .seconds(1)))
                    .complete(ChatRequest(messages: [.user("Hi")], maxTokens: 8))
            }
            #expect(error?.code == .timeout)
            #expect(ContinuousClock.now - started < .seconds(15))
        }
    }

    @Test("A closed port is unavailable and names the URL")
    func closedPortIsUnavailable() async throws {
        let base = URL(string: "http://127.0.0.1:\(closedPort())/v1")!
        let error = await #expect(throws: NotesError.self) {
            try await ChatCompletionsClient(configuration: .init(baseURL: base, model: "m"))
                .complete(ChatRequest(messages: [.user("Hi")], maxTokens: 8))
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains(base.absoluteString) == true)
    }

    @Test("A provider refusing response_format (400) is asked again without it")
    func schemaRefused() async throws {
        let calls = Mutex(0)
        let router = Router()
        router.post("/v1/chat/completions") { request, _ in
            calls.withLock { $0 += 1 }
            let body = try JSONSerialization.jsonObject(with: Data(request.bytes)) as? [String: Any] ?? [:]
            if body["response_format"] != nil {
                return .text(#"{"error":{"message":"response_format is not supported"}}"#, status: .badRequest)
            }
            return .text(completion(#"{"ok": true}"#), contentType: "application/json")
        }
        let answer = try await withProvider(router) { base in
            try await ChatCompletionsClient(configuration: .init(baseURL: base, model: "m"))
                .complete(ChatRequest(messages: [.user("Hi")], maxTokens: 8, jsonSchema: #"{"type":"object"}"#))
        }
        #expect(answer == #"{"ok": true}"#)
        #expect(calls.withLock { $0 } == 2)
    }

    @Test("A summary whose model answers garbage falls back to the extractive summary, saying why")
    func garbageFallsBack() async throws {
        let router = Router()
        router.post("/v1/chat/completions") { _, _ in
            .text(completion("Sure! Here are the notes: the meeting was good."), contentType: "application/json")
        }
        let summary = try await withProvider(router) { base in
            let processor = NoteProcessor(model: ChatCompletionsClient(configuration: .init(baseURL: base, model: "m")))
            return try await processor.summarize(Transcripts.meeting, language: "en")
        }
        #expect(summary.method == .extractive)
        #expect(summary.warnings.contains { $0.contains("language model m failed") && $0.contains("not JSON") })
    }

    @Test(
        "A summary whose points cite lines outside the transcript, or nearly all of it, falls back",
        arguments: ["[40, 99]", "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]"])
    func unusableLinesFallBack(lines: String) async throws {
        let router = Router()
        router.post("/v1/chat/completions") { _, _ in
            let answer =
                #"{"abstract": "The team reviewed the launch of new headphones.", "key_points": "#
                + #"[{"text": "Launch in March.", "lines": "# + lines + #"}], "action_items": []}"#
            return .text(completion(answer), contentType: "application/json")
        }
        let summary = try await withProvider(router) { base in
            let processor = NoteProcessor(model: ChatCompletionsClient(configuration: .init(baseURL: base, model: "m")))
            return try await processor.summarize(Transcripts.meeting, language: "en")
        }
        #expect(summary.method == .extractive)
        #expect(summary.warnings.contains { $0.contains("no key point") })
    }

    @Test("A summary that cites real lines but invents its content falls back")
    func inventedContentFallsBack() async throws {
        let router = Router()
        router.post("/v1/chat/completions") { _, _ in
            let answer = #"{"abstract": "The new policy has been met with widespread criticism from voters.", "#
                + #""key_points": [{"text": "Critics oppose the policy.", "lines": [3]}], "action_items": []}"#
            return .text(completion(answer), contentType: "application/json")
        }
        let summary = try await withProvider(router) { base in
            let processor = NoteProcessor(model: ChatCompletionsClient(configuration: .init(baseURL: base, model: "m")))
            return try await processor.summarize(Transcripts.meeting, language: "en")
        }
        #expect(summary.method == .extractive)
        #expect(summary.warnings.contains { $0.contains("not in the transcript") })
    }

    @Test("A valid model answer leads, with spans taken from the cited lines")
    func validAnswerLeads() async throws {
        let router = Router()
        router.post("/v1/chat/completions") { _, _ in
            let answer =
                #"{"abstract": "The team planned the March launch of new headphones.", "key_points": "#
                + #"[{"text": "Units ship on 14 March.", "lines": [2]}, {"text": "Fast charging is capped.", "#
                + #""lines": ["4", 5]}], "action_items": [{"text": "Ben updates the firmware by Friday.", "lines": [6]}]}"#
            return .text(completion("```json\n" + answer + "\n```"), contentType: "application/json")
        }
        let summary = try await withProvider(router) { base in
            let processor = NoteProcessor(model: ChatCompletionsClient(configuration: .init(baseURL: base, model: "m")))
            return try await processor.summarize(Transcripts.meeting, language: "en")
        }
        #expect(summary.method == .languageModel)
        #expect(summary.model == "m")
        #expect(summary.keyPoints.map(\.startMs) == [4200, 15100])
        #expect(summary.keyPoints.map(\.endMs) == [9800, 25900])
        #expect(
            summary.actionItems == [
                NotePoint(text: "Ben updates the firmware by Friday.", startMs: 25900, endMs: 30100)
            ])
    }
}
