import EarshotAudio
import EarshotEval
import EarshotSpeech
import EarshotTestSupport
import EarshotVoice
import Foundation
import Testing

/// espeak-ng as a child process: what it says is what was asked (transcribed back by the project's own engine), in
/// the voice, language and pace asked, and every bad request is a clear error.
@Suite(.enabled(if: SpeechSynthesis.available, "needs espeak-ng (make setup)"))
struct EspeakSynthesizerTests {
    let synthesizer = EspeakSynthesizer()

    static let sentence = "Please remember to bring your umbrella, the forecast says it will rain all afternoon."

    /// The samples at 16 kHz, the engine's rate.
    static func engineSamples(_ speech: SynthesizedSpeech) throws -> [Float] {
        let resampler = try PCMResampler(inputRate: speech.sampleRate)
        return try resampler.convert([UInt8](PCM16.bytes(speech.samples))) + resampler.flush()
    }

    static func wer(reference: String, hypothesis: String) -> Double {
        TextEvaluation(configuration: .init(language: .english))
            .evaluate([.init(name: "speech", reference: reference, hypothesis: hypothesis)]).wordErrorRate
    }

    @Test(
        "the sentence comes back through the speech engine (WER ≤ 0.2)", .exclusive("speech decoding"),
        .enabled(if: TestEnvironment.exist(TestEnvironment.asrFastModel), "needs ggml-base-q8_0.bin (make setup)"))
    func speechIsIntelligible() async throws {
        let speech = try await synthesizer.synthesize(SpeechRequest(text: Self.sentence, language: "en"))
        #expect(speech.sampleRate == EspeakSynthesizer.sampleRate)
        #expect(speech.duration > .seconds(3) && speech.duration < .seconds(10), "\(speech.duration)")
        let model = try SpeechModel(path: TestEnvironment.asrFastModel.path)
        var options = TranscriptionOptions()
        options.language = "en"
        let transcript = try await SpeechEngine(model: model).transcript(
            of: try Self.engineSamples(speech), options: options)
        let wer = Self.wer(reference: Self.sentence, hypothesis: transcript.text)
        print("espeak-ng → asr-fast: \"\(transcript.text)\" WER \(wer)")
        #expect(wer <= 0.2, "\(transcript.text)")
    }

    @Test func eachStandardVoiceSoundsDifferent() async throws {
        var seen: [String: StandardVoice] = [:]
        for voice in StandardVoice.allCases {
            let speech = try await synthesizer.synthesize(SpeechRequest(text: "Good morning.", voice: voice.rawValue))
            #expect(speech.samples.count > EspeakSynthesizer.sampleRate / 4, "\(voice)")
            let key = "\(speech.samples.count):\(speech.samples.prefix(4000).reduce(0) { $0 + abs($1) })"
            #expect(seen[key] == nil, "\(voice) sounds like \(seen[key].map { "\($0)" } ?? "")")
            seen[key] = voice
        }
        #expect(seen.count == StandardVoice.allCases.count)
    }

    @Test func languagesMapOntoEspeakNames() async throws {
        #expect(try await synthesizer.espeakVoice(for: SpeechRequest(text: "x", language: "en")) == "en-us+m3")
        #expect(
            try await synthesizer.espeakVoice(for: SpeechRequest(text: "x", language: "fr", voice: "nova"))
                == "fr-fr+f3")
        #expect(try await synthesizer.espeakVoice(for: SpeechRequest(text: "x", language: "pt-BR")) == "pt-br+m3")
        #expect(try await synthesizer.espeakVoice(for: SpeechRequest(text: "x", language: "zh")) == "cmn+m3")
        #expect(try await synthesizer.espeakVoice(for: SpeechRequest(text: "x", language: "de-AT")) == "de+m3")
        let french = try await synthesizer.synthesize(SpeechRequest(text: "Bonjour à tous.", language: "fr"))
        #expect(french.duration > .milliseconds(500))
    }

    @Test func fasterSpeechIsShorter() async throws {
        let normal = try await synthesizer.synthesize(SpeechRequest(text: Self.sentence))
        let fast = try await synthesizer.synthesize(SpeechRequest(text: Self.sentence, speed: 2))
        let slow = try await synthesizer.synthesize(SpeechRequest(text: Self.sentence, speed: 0.5))
        #expect(Double(fast.samples.count) < 0.7 * Double(normal.samples.count))
        #expect(Double(slow.samples.count) > 1.4 * Double(normal.samples.count))
    }

    @Test func textThatLooksLikeAnOptionIsSpoken() async throws {
        let speech = try await synthesizer.synthesize(SpeechRequest(text: "--help -v xx"))
        #expect(speech.duration > .milliseconds(500))
    }

    @Test func badRequestsAreClearErrors() async throws {
        let language = await #expect(throws: VoiceError.self) {
            try await synthesizer.synthesize(SpeechRequest(text: "hello", language: "xx"))
        }
        #expect(language?.code == .unsupportedLanguage)
        #expect(language?.message.contains("en-us") == true, "lists what it speaks: \(language?.message ?? "")")
        let voice = await #expect(throws: VoiceError.self) {
            try await synthesizer.synthesize(SpeechRequest(text: "hello", voice: "darth"))
        }
        #expect(voice?.code == .unsupportedVoice)
        #expect(voice?.message.contains("shimmer") == true)
        let empty = await #expect(throws: VoiceError.self) {
            try await synthesizer.synthesize(SpeechRequest(text: "  \n"))
        }
        #expect(empty?.code == .invalidInput)
        let speed = await #expect(throws: VoiceError.self) {
            try await synthesizer.synthesize(SpeechRequest(text: "hello", speed: 5))
        }
        #expect(speed?.code == .invalidInput)
    }

    @Test func speechLongerThanTheMaximumIsRefusedAtOnce() async throws {
        let short = EspeakSynthesizer(configuration: .init(maxDuration: .seconds(3)))
        let clock = ContinuousClock()
        let start = clock.now
        // About 3 hours of speech: espeak-ng needs some 10 s of CPU for all of it, so a refusal within a few seconds on a
        // loaded machine means the child was stopped as soon as its output passed the maximum.
        let error = await #expect(throws: VoiceError.self) {
            try await short.synthesize(SpeechRequest(text: String(repeating: Self.sentence + " ", count: 2_000)))
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("longer than 3 s") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("split it") == true)
        #expect(clock.now - start < .seconds(6))
        #expect(try await short.synthesize(SpeechRequest(text: "Just this.")).duration < .seconds(3))
    }

    @Test func aMissingEngineSaysHowToInstallIt() async throws {
        let missing = EspeakSynthesizer(configuration: .init(executable: "/nonexistent/espeak-ng"))
        let error = await #expect(throws: VoiceError.self) {
            try await missing.synthesize(SpeechRequest(text: "hello"))
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("apt-get install espeak-ng") == true, "\(error?.message ?? "")")
    }

    @Test func concurrentRequestsAllFinishAndCancellationStopsTheChild() async throws {
        let bounded = EspeakSynthesizer(configuration: .init(concurrency: 2))
        let lengths = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<6 {
                group.addTask {
                    try await bounded.synthesize(SpeechRequest(text: "Request number \(index).")).samples.count
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(lengths.count == 6 && lengths.allSatisfy { $0 > 0 })

        // About five minutes of speech: cancelled a moment after it starts, it ends at once.
        let long = String(repeating: Self.sentence + " ", count: 45)
        let clock = ContinuousClock()
        let start = clock.now
        let task = Task { try await bounded.synthesize(SpeechRequest(text: long, speed: 0.25)) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.now - start < .seconds(3))
    }
}
