import Foundation
import Testing

import EarshotModels
@testable import EarshotSpeech

@Suite("Engine pieces without weights")
struct EngineUnitTests {
    @Test("audio_ctx rule: short clips get a window sized to them, 30 s and longer the full window")
    func audioContextRule() {
        let rule = AudioContextRule.standard
        #expect(rule.positions(forSamples: 16_000) == 384)  // 1 s → 50 + margin → minimum
        #expect(rule.positions(forSamples: 3 * 16_000) == 384)  // 3 s → 150 + 128 = 278 → 384
        #expect(rule.positions(forSamples: 11 * 16_000) == 704)  // 11 s → 550 + 128 = 678 → 704
        #expect(rule.positions(forSamples: 27 * 16_000) == 0)  // 1350 + 128 ≥ 1500 → full
        #expect(rule.positions(forSamples: 30 * 16_000) == 0)
        #expect(rule.positions(forSamples: 600 * 16_000) == 0)
        for seconds in 1..<30 {
            let positions = rule.positions(forSamples: seconds * 16_000)
            #expect(positions == 0 || (positions % 64 == 0 && positions >= seconds * 50 + 128))
        }
    }

    @Test("VAD time map sends filtered times back to the original recording")
    func timeMap() {
        // Speech at 1.0–2.0 s and 5.0–6.0 s, laid out as 0–1 s, gap, 1.1–2.1 s.
        let map = TimeMap(knots: [(0, 16_000), (16_000, 32_000), (17_600, 80_000), (33_600, 96_000)])
        #expect(map.original(0) == 16_000)
        #expect(map.original(8_000) == 24_000)
        #expect(map.original(16_800) == 56_000)  // inside the gap → inside the original silence
        #expect(map.original(25_600) == 88_000)
        #expect(map.original(40_000) == 102_400)  // past the end keeps going at 1:1
        #expect(map.originalMilliseconds(centiseconds: 50) == 1_500)
        #expect(TimeMap.identity.original(12_345) == 12_345)
    }

    @Test("a missing model file is a clear error")
    func missingModel() {
        #expect {
            try SpeechModel(path: "/nonexistent/ggml-base.bin")
        } throws: { error in
            (error as? SpeechError)?.code == .modelNotFound
                && (error as? SpeechError)?.message.contains("/nonexistent/ggml-base.bin") == true
        }
    }

    @Test("a file that is not a ggml model is refused")
    func garbageModel() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-model-\(UUID()).bin")
        try Data(repeating: 7, count: 4096).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect {
            try SpeechModel(path: url.path)
        } throws: { error in
            (error as? SpeechError)?.code == .invalidModel
        }
    }

    @Test("the vocabulary-only test model loads, shares one context and allocates states lazily")
    func vocabularyOnlyModel() async throws {
        let model = try SpeechModel(path: Fixtures.vocabularyOnlyModel)
        #expect(model.sizeName == "tiny")
        #expect(model.isMultilingual)
        #expect(model.audioContext == 1500)
        #expect(model.melBins == 80)
        let engine = SpeechEngine(model: model, configuration: .init(concurrentDecodes: 2))
        #expect(engine.pool.allocatedStates == 0)
        // Bad audio fails before a state is taken.
        await #expect(throws: SpeechError.self) { try await engine.transcript(of: []) }
        await #expect(throws: SpeechError.self) { try await engine.transcript(of: [0, .nan, 0]) }
        #expect(engine.pool.allocatedStates == 0)
    }

    @Test("languages are whisper's ISO codes")
    func languages() {
        #expect(SpeechModel.isKnownLanguage("en"))
        #expect(SpeechModel.isKnownLanguage("zh"))
        #expect(!SpeechModel.isKnownLanguage("klingon"))
        #expect(SpeechModel.languageCodes.count >= 99)
        #expect(SpeechModel.languageCodes.first == "en")
    }

    @Test("bad options are refused before any work, with what to do")
    func badOptions() {
        var options = TranscriptionOptions()
        options.language = "klingon"
        #expect(throws: SpeechError.self) { try options.validate(multilingual: true) }
        options.language = "en"
        options.beamSize = 0
        #expect(throws: SpeechError.self) { try options.validate(multilingual: true) }
        options.beamSize = 5
        options.task = .translate
        #expect(throws: SpeechError.self) { try options.validate(multilingual: false) }
        #expect(throws: Never.self) { try options.validate(multilingual: true) }
    }

    @Test("prompt and hotwords combine into one prompt")
    func prompt() {
        var options = TranscriptionOptions()
        #expect(options.effectivePrompt == nil)
        options.hotwords = ["Earshot", "Dashwood"]
        #expect(options.effectivePrompt == "Glossary: Earshot, Dashwood.")
        options.initialPrompt = "Meeting notes."
        #expect(options.effectivePrompt == "Meeting notes. Glossary: Earshot, Dashwood.")
    }

    @Test("a tier sets the decoding fields and leaves the rest of the options alone")
    func tiers() {
        var options = TranscriptionOptions()
        options.language = "en"
        options.wordTimestamps = true
        let pro = options.applying(.pro)
        #expect(pro.beamSize == 5)
        #expect(pro.bestOf == ModelTier.pro.bestOf)
        #expect(pro.temperatureIncrement == ModelTier.pro.temperatureIncrement)
        #expect(pro.language == "en" && pro.wordTimestamps)
        #expect(options.applying(.fast).beamSize == 1)
    }
}
