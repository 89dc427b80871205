import EarshotDiarization
import Foundation
import Testing

/// The Swift port against vectors produced once by the Resemblyzer Python package
/// (Tests/Fixtures/diarization/resemblyzer_reference.json, made by Benchmarks/diarization/resemblyzer_embed.py).
@Suite(
    .enabled(if: TestData.hasWeights, "run scripts/setup-diarization"),
    .enabled(if: TestData.hasSample, "testdata/pyannote/sample.wav is missing (scripts/setup)"))
struct EmbeddingParityTests {
    struct Fixture: Decodable {
        struct Clip: Decodable {
            var start: Double
            var end: Double
            var embedding: [Float]
        }
        var clips: [Clip]
    }

    @Test func matchesResemblyzerOnTheSameAudio() throws {
        let fixture = try JSONDecoder().decode(
            Fixture.self, from: Data(contentsOf: TestData.fixture("resemblyzer_reference.json")))
        let samples = try TestData.decode(TestData.sampleWAV)
        let embedder = try ResemblyzerEmbedder(weightsURL: URL(fileURLWithPath: TestData.weights))
        let clips = fixture.clips.map { clip in
            samples[Int((clip.start * 16_000).rounded())..<min(samples.count, Int((clip.end * 16_000).rounded()))]
        }
        let ours = try embedder.embed(clips)
        for (clip, vector) in zip(fixture.clips, ours) {
            #expect(vector.count == 256)
            let similarity = cosine(vector, clip.embedding)
            print("parity \(clip.start)–\(clip.end) s: cosine \(similarity)")
            #expect(similarity >= 0.99, "clip \(clip.start)–\(clip.end) s")
        }
    }

    @Test func missingWeightsSayHowToInstallThem() {
        #expect {
            _ = try ResemblyzerEmbedder(weightsURL: URL(fileURLWithPath: "/nonexistent/weights.eswt"))
        } throws: { error in
            guard let error = error as? DiarizationError else { return false }
            return error.code == .weightsMissing && error.message.contains("scripts/setup-diarization")
        }
    }

    @Test func corruptWeightsAreRefusedWithTheFix() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(getpid()).eswt")
        try Data("ESWT0001\u{4}\0\0\0{}xx".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect {
            _ = try ResemblyzerEmbedder(weightsURL: url)
        } throws: { error in
            guard let error = error as? DiarizationError else { return false }
            return error.code == .weightsInvalid && error.message.contains("scripts/setup-diarization")
        }
    }

    @Test func cancelledTaskStopsEmbedding() async throws {
        let embedder = try ResemblyzerEmbedder(weightsURL: URL(fileURLWithPath: TestData.weights))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try embedder.embed([Float](repeating: 0.1, count: 16_000))
        }
        await #expect {
            _ = try await task.value
        } throws: { error in
            (error as? DiarizationError)?.code == .cancelled
        }
    }

    @Test func emptyClipIsRefused() throws {
        let embedder = try ResemblyzerEmbedder(weightsURL: URL(fileURLWithPath: TestData.weights))
        #expect(throws: DiarizationError.self) { _ = try embedder.embed([[Float]()[...]]) }
    }
}
