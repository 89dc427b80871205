import EarshotAudio
import EarshotSpeech
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotLive

/// When a turn's partial decodes are asked for: every `partialInterval` while it is spoken, and — when one could not
/// start because the engine was busy with the session's final or previous partial — again at the next 100 ms look,
/// not a whole interval later.
@Suite struct PartialScheduleTests {
    /// Appends and session updates only: nothing here decodes.
    struct NoDecodes: LiveRecognizer {
        func transcribe(_ samples: [Float], settings: TranscriptionSettings, as decode: LiveDecode) async throws
            -> Recognition?
        {
            Issue.record("no decode expected")
            return nil
        }
        func validate(_ settings: TranscriptionSettings) async throws {}
    }

    /// 100 ms of `samples` as an append event (PCM16, 16 kHz).
    static func append(_ samples: ArraySlice<Float>) -> RealtimeTranscriptionSession.Incoming {
        let pcm = samples.map { Int16(max(-1, min(1, $0)) * 32_767) }
        let bytes = pcm.withUnsafeBytes { Data($0) }
        return .text(#"{"type":"input_audio_buffer.append","audio":"\#(bytes.base64EncodedString())"}"#)
    }

    /// The 100 ms steps (counted from the first) at which JFK's first turn asks for a partial; `busy` says, for the
    /// n-th request, whether the engine refused it.
    static func partialSteps(busy: (Int) -> Bool) async throws -> [Int] {
        let jfk = try await AudioDecoder(contentsOf: TestEnvironment.jfk).decodeAll()
        var configuration = RealtimeTranscriptionSession.Configuration()
        configuration.inputRate = 16_000
        configuration.turnSplitting = nil
        // One turn through JFK's pauses.
        configuration.turnDetection?.silenceDurationMs = 2_000
        var state = SessionState(configuration: configuration, detector: try VoiceActivityStream())
        var steps: [Int] = []
        for (step, offset) in stride(from: 0, to: 5 * 16_000, by: 1_600).enumerated() {
            let actions = await state.handle(Self.append(jfk[offset..<offset + 1_600]), recognizer: NoDecodes())
            for case .partial in actions {
                steps.append(step)
                if busy(steps.count) { state.partialNotStarted() }
            }
        }
        return steps
    }

    @Test func aPartialThatCouldNotStartIsAskedForAtTheNextLook() async throws {
        let regular = try await Self.partialSteps(busy: { _ in false })
        #expect(regular.count >= 3)
        #expect(zip(regular, regular.dropFirst()).allSatisfy { $1 - $0 == 10 }, "every second: \(regular)")
        // The second request is refused twice (a final is decoding): it comes again 100 ms later each time, and the
        // interval then runs from the one that started.
        let refused = try await Self.partialSteps(busy: { $0 == 2 || $0 == 3 })
        #expect(Array(refused.prefix(5)) == [regular[0], regular[1], regular[1] + 1, regular[1] + 2, regular[1] + 12])
    }

    @Test("a live decode's options: the session's language and prompt, word times for finals, no fallback for previews")
    func liveDecodeOptions() {
        var tier = TranscriptionOptions()
        tier.language = "de"
        tier.temperatureIncrement = 0.2
        let settings = TranscriptionSettings(language: "EN", prompt: "Earshot")
        let partial = tier.live(settings, .partial)
        #expect(partial.language == "en" && partial.initialPrompt == "Earshot")
        #expect(partial.temperatureIncrement == 0 && !partial.wordTimestamps)
        for decode in [LiveDecode.early, .final] {
            let options = tier.live(settings, decode)
            #expect(options.temperatureIncrement == 0.2 && options.wordTimestamps)
        }
        // A session that sets neither keeps what the caller chose (earshot eval --live --language).
        let unset = tier.live(TranscriptionSettings(), .final)
        #expect(unset.language == "de" && unset.initialPrompt == nil)
    }
}
