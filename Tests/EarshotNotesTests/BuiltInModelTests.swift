import Foundation
import Testing

@testable import EarshotNotes

/// Summaries and translations by the real `llama-server` with SmolLM2-135M (installed by `make setup`). One server
/// is shared by the suite; requests run one after another (the server has one slot).
@Suite("Built-in model", .serialized, .timeLimit(.minutes(30)))
struct BuiltInModelTests {
    init() throws {
        let configuration = BuiltInModel.configuration
        try #require(
            FileManager.default.isExecutableFile(atPath: configuration.executable),
            "\(configuration.executable) is missing: run make setup (scripts/setup-llm)")
        try #require(FileManager.default.fileExists(atPath: configuration.model), "run make setup (scripts/setup-llm)")
    }

    @Test("The language model writes a summary whose points point into the transcript")
    func summary() async throws {
        let segments = Transcripts.meeting
        let processor = NoteProcessor(model: BuiltInModel.shared)
        let summary = try await processor.summarize(segments, language: "en")
        await BuiltInModel.noteSharedPID()
        // SmolLM2-135M is weak: whichever path produced it, the result must be well formed, and a fallback must
        // say why.
        if summary.method == .languageModel {
            #expect(summary.model == "SmolLM2-135M-Instruct.Q4_1")
        } else {
            #expect(summary.method == .extractive)
            // A fallback must come from the model's answer failing validation, not from an unreachable server.
            let reason = try #require(summary.warnings.first { $0.contains("SmolLM2-135M-Instruct.Q4_1 failed") })
            #expect(!reason.contains("not running") && !reason.contains("cannot reach"))
        }
        #expect((12...800).contains(summary.abstract.count))
        #expect(summary.language == "en")
        #expect((1...8).contains(summary.keyPoints.count))
        #expect(summary.actionItems.count <= 6)
        let end = segments.last!.endMs
        for point in summary.keyPoints + summary.actionItems {
            #expect(!point.text.isEmpty && point.text.count <= 280)
            #expect(0 <= point.startMs && point.startMs <= point.endMs && point.endMs <= end)
            #expect(segments.contains { $0.startMs == point.startMs } && segments.contains { $0.endMs == point.endMs })
        }
    }

    @Test("A long transcript is summarised map-reduce over chunks that fit the context")
    func mapReduce() async throws {
        // The meeting twice over (shifted times) against a 1,200-token context: several chunks, few tokens.
        var segments: [NoteSegment] = []
        for round in 0..<2 {
            for segment in Transcripts.meeting {
                var copy = segment
                copy.startMs += round * 70_000
                copy.endMs += round * 70_000
                segments.append(copy)
            }
        }
        let model = SmallContext(base: BuiltInModel.shared, contextTokens: 1200)
        let summarizer = ModelSummarizer(model: model, maximumKeyPoints: 6, maximumActionItems: 5)
        let chunks = summarizer.chunks(segments)
        #expect(chunks.count >= 2)
        #expect(chunks.first?.lowerBound == 0 && chunks.last?.upperBound == segments.count)
        for (a, b) in zip(chunks, chunks.dropFirst()) { #expect(a.upperBound == b.lowerBound) }
        let summary = try await NoteProcessor(model: model).summarize(segments, language: "en")
        let end = segments.last!.endMs
        for point in summary.keyPoints + summary.actionItems {
            #expect(0 <= point.startMs && point.startMs <= point.endMs && point.endMs <= end)
        }
        if summary.method == .languageModel {
            #expect(summary.warnings.contains("summarised in \(chunks.count) parts (map-reduce)"))
        }
    }

    @Test(
        "The built-in model's translation passes the gate or fails honestly with lowQuality naming what to configure",
        arguments: ["fr", "zh"])
    func translation(target: String) async throws {
        let segments = Array(Transcripts.meeting.prefix(4))
        let result: NoteTranslation
        do {
            result = try await NoteProcessor(model: BuiltInModel.shared).translate(segments, from: "en", to: target)
        } catch let error as NotesError where error.code == .lowQuality {
            #expect(error.message.contains("llm-base-url"))
            #expect(error.message.contains("SmolLM2-135M-Instruct.Q4_1"))
            return
        }
        // It passed: then it must really be a translation, segment for segment.
        #expect(result.targetLanguage == target)
        #expect(result.segments.count == segments.count)
        #expect(result.segments.map(\.startMs) == segments.map(\.startMs))
        #expect(result.segments.map(\.speaker) == segments.map(\.speaker))
        let verdict = TranslationCheck().verdict(
            source: segments, output: result.segments.map(\.text), sourceLanguage: "en", target: target)
        #expect(verdict.passes)
        #expect(result.detectedLanguage == nil || result.detectedLanguage == target)
    }
}

/// The managed `llama-server` process: restarts, stop on cancellation, start failures.
@Suite("Managed llama-server", .serialized, .timeLimit(.minutes(10)))
struct ManagedLlamaServerTests {
    @Test("A killed server is restarted and the next request succeeds")
    func restartAfterKill() async throws {
        let server = ManagedLlamaServer(configuration: BuiltInModel.configuration)
        let running = Task { try await server.run() }
        defer { running.cancel() }
        let request = ChatRequest(messages: [.user("Say hello.")], maxTokens: 8)
        _ = try await server.complete(request)
        let first = try #require(await server.processIdentifier)
        #expect(kill(first, SIGKILL) == 0)
        _ = try await server.complete(request)
        let second = try #require(await server.processIdentifier)
        #expect(second != first)
        #expect(await server.restarts == 1)
        running.cancel()
        _ = try? await running.value
        #expect(kill(second, 0) != 0, "the child must be gone once run() returned")
    }

    @Test("The child's OpenMP threads sleep while waiting, unless the operator chose a policy")
    func childWaitsPassively() async throws {
        #expect(ManagedLlamaServer.environment([:]) == ["OMP_WAIT_POLICY": "PASSIVE"])
        #expect(ManagedLlamaServer.environment(["OMP_WAIT_POLICY": "ACTIVE"]).isEmpty)
        let server = ManagedLlamaServer(configuration: BuiltInModel.configuration)
        let running = Task { try await server.run() }
        defer { running.cancel() }
        _ = try await server.complete(ChatRequest(messages: [.user("Say hello.")], maxTokens: 4))
        let pid = try #require(await server.processIdentifier)
        let environment = try String(contentsOfFile: "/proc/\(pid)/environ", encoding: .utf8)
            .split(separator: "\0").map(String.init)
        let inherited = ProcessInfo.processInfo.environment["OMP_WAIT_POLICY"]
        #expect(environment.contains("OMP_WAIT_POLICY=\(inherited ?? "PASSIVE")"))
        #expect(environment.contains { $0.hasPrefix("PATH=") }, "the rest of the environment is inherited")
        running.cancel()
        _ = try? await running.value
    }

    @Test("Nothing starts before the first request; cancelling run() before that returns at once")
    func lazyStart() async throws {
        let server = ManagedLlamaServer(configuration: BuiltInModel.configuration)
        let running = Task { try await server.run() }
        try await Task.sleep(for: .milliseconds(200))
        #expect(await server.processIdentifier == nil)
        running.cancel()
        try await running.value
    }

    @Test("Without run() active, or with a missing binary, requests fail with a clear error instead of hanging")
    func startFailures() async throws {
        let idle = ManagedLlamaServer(configuration: BuiltInModel.configuration)
        let notRunning = await #expect(throws: NotesError.self) {
            try await idle.complete(ChatRequest(messages: [.user("Hi")], maxTokens: 4))
        }
        #expect(notRunning?.code == .unavailable)

        var configuration = BuiltInModel.configuration
        configuration.executable = "/nonexistent/llama-server"
        let broken = ManagedLlamaServer(configuration: configuration)
        let running = Task { try await broken.run() }
        defer { running.cancel() }
        let missing = await #expect(throws: NotesError.self) {
            try await broken.complete(ChatRequest(messages: [.user("Hi")], maxTokens: 4))
        }
        #expect(missing?.code == .invalidConfiguration)
        #expect(missing?.message.contains("scripts/setup-llm") == true)
        // The processor falls back to the extractive summary and says why.
        let summary = try await NoteProcessor(model: broken).summarize(Transcripts.meeting, language: "en")
        #expect(summary.method == .extractive)
        #expect(summary.warnings.contains { $0.contains("not installed") })
    }

    @Test("A model at a closed port (the language model is down) gives the labelled extractive summary")
    func downModelFallsBack() async throws {
        let base = URL(string: "http://127.0.0.1:\(closedPort())/v1")!
        let processor = NoteProcessor(model: ChatCompletionsClient(configuration: .init(baseURL: base, model: "m")))
        let summary = try await processor.summarize(Transcripts.meeting, language: "en")
        #expect(summary.method == .extractive)
        #expect(summary.warnings.contains { $0.contains("cannot reach the language model") })
        #expect(!summary.keyPoints.isEmpty)
    }
}

/// The real model with a smaller context budget, so prompts are chunked sooner (the server's context is larger).
struct SmallContext: LanguageModel {
    let base: any LanguageModel
    let contextTokens: Int
    var name: String { base.name }
    func complete(_ request: ChatRequest) async throws -> String { try await base.complete(request) }
}
