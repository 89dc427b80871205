import EarshotModels
import EarshotSpeech
import Foundation
import Testing

/// What `FileTranscriber` (the pipeline of the CLI, eval and the server's workers) makes of model names and homes.
@Suite(.serialized, .enabled(if: Fixtures.hasBase, "needs ggml-base-q8_0.bin (make setup)"))
struct FileTranscriberModelTests {
    @Test(arguments: [("ikho-asr-pro", "asr-pro", 5), ("ikho-asr-fast", "asr-fast", 1), ("whisper-1", "asr-fast", 1)])
    func anAliasRunsWithItsTiersModelAndDecoding(alias: String, tier: String, beamSize: Int) async throws {
        let transcriber = FileTranscriber(configuration: .init(models: ModelStore(home: Fixtures.home)))
        let (_, options, model) = try await transcriber.engine(for: alias)
        #expect(model.tier?.name == tier)
        #expect(model.path == Fixtures.baseQ8)
        #expect(options.beamSize == beamSize)
    }

    @Test func theVoiceActivityModelComesFromTheSameHomeAsTheWhisperModel() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-home-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home + "/models", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createSymbolicLink(
            atPath: home + "/models/ggml-base-q8_0.bin", withDestinationPath: Fixtures.baseQ8)
        let transcriber = FileTranscriber(configuration: .init(models: ModelStore(home: home)))
        let audio = try await transcriber.prepareAudio(URL(fileURLWithPath: Fixtures.testdata("jfk.wav")))
        var options = TranscriptionOptions()
        options.language = "en"

        // The process's home has the Silero model; this home does not, and the decode looks only here.
        let (engine, tuned, _) = try await transcriber.engine(for: "asr-fast", options: options)
        let error = await #expect(throws: SpeechError.self) {
            try await engine.transcript(of: audio.samples, options: tuned)
        }
        #expect(error?.code == .voiceActivityFailed)
        #expect(error?.message.contains(home + "/models/silero-v6.2.0-ggml.bin") == true)

        try FileManager.default.createSymbolicLink(
            atPath: home + "/models/silero-v6.2.0-ggml.bin", withDestinationPath: Fixtures.silero)
        let transcript = try await engine.transcript(of: audio.samples, options: tuned)
        #expect(transcript.text.lowercased().contains("ask not what your country can do for you"))
    }
}
