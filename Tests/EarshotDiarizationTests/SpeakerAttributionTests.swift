import EarshotDiarization
import EarshotEval
import EarshotSpeech
import EarshotTestSupport
import Foundation
import Testing

/// SpeakerAttribution: the one place transcripts get speakers (CLI, eval, server workers).
@Suite(.enabled(if: TestData.hasWeights, "Resemblyzer weights not installed (run make setup)"))
struct SpeakerAttributionTests {
    static let attribution: SpeakerAttribution? = try? SpeakerAttribution(embedder: ResemblyzerEmbedder())

    @Test func badOptionsAreRefusedWithTheFieldName() async throws {
        let attribution = try #require(Self.attribution)
        let empty = Transcript(language: "en", languageProbability: nil, durationMs: 1000, speechMs: 0, segments: [])
        let cases: [(SpeakerAttribution.Options, String)] = [
            (.init(speakers: 0), "speakers"),
            (.init(minSpeakers: 4, maxSpeakers: 2), "min_speakers"),
            (.init(speakers: 5, maxSpeakers: 3), "within"),
            (.init(maxSpeakers: 33), "max_speakers"),
            (.init(labelTemplate: "Speaker"), "{n}"),
        ]
        for (options, field) in cases {
            await #expect {
                _ = try await attribution.attribute(
                    empty, samples: [Float](repeating: 0, count: 16_000), options: options)
            } throws: { error in
                let error = error as? DiarizationError
                return error?.code == .invalidConfiguration && error?.message.contains(field) == true
            }
        }
    }

    @Test func enrolmentNeedsSpeechAndAName() async throws {
        let attribution = try #require(Self.attribution)
        await #expect {
            _ = try await attribution.voiceprint(named: "Me", samples: [Float](repeating: 0, count: 5 * 16_000))
        } throws: { error in
            (error as? DiarizationError)?.code == .invalidInput
                && (error as? DiarizationError)?.message.contains("at least 3 s") == true
        }
        await #expect {
            _ = try await attribution.voiceprint(named: "  ", samples: [Float](repeating: 0, count: 16_000))
        } throws: { error in (error as? DiarizationError)?.message.contains("empty") == true }
    }

    @Test(.enabled(if: SpeechSynthesis.available, "espeak-ng not installed"))
    func aMatchingSpeakerTakesTheEnrolledNameAndAnAbsentVoiceNamesNobody() async throws {
        let attribution = try #require(Self.attribution)
        let directory = try TestEnvironment.makeTemporaryDirectory("vp")
        defer { try? FileManager.default.removeItem(at: directory) }
        let dialogue = try SyntheticDialogue.make(speakers: 2, turnCount: 8, directory: directory)
        let voices = try (0..<3).map { try enrolmentSample(voice: $0, directory: directory) }
        let alice = try await attribution.voiceprint(named: "Alice", samples: voices[0])
        let carol = try await attribution.voiceprint(named: "Carol", samples: voices[2])
        #expect(alice.speechSeconds > 3)

        // One segment per reference turn, without words: each is attributed whole.
        let transcript = Transcript(
            language: "en", languageProbability: nil, durationMs: dialogue.samples.count / 16, speechMs: 0,
            segments: dialogue.turns.enumerated().map { index, turn in
                Transcript.Segment(
                    startMs: Int(turn.start * 1000), endMs: Int(turn.end * 1000), text: "turn \(index)")
            })
        let named = try await attribution.attribute(
            transcript, samples: dialogue.samples, options: .init(voiceprints: [alice, carol]))
        for (segment, turn) in zip(named.segments, dialogue.turns) {
            #expect((segment.speaker == "Alice") == (turn.speaker == "S1"), "\(segment) \(turn)")
        }
        #expect(!named.segments.contains { $0.speaker == "Carol" })
        #expect(Set(named.segments.compactMap(\.speaker)) == ["Alice", "Speaker 2"])

        // Only the absent voice enrolled: nobody is named, labels follow the template.
        let unnamed = try await attribution.attribute(
            transcript, samples: dialogue.samples, options: .init(labelTemplate: "发言人 {n}", voiceprints: [carol]))
        #expect(Set(unnamed.segments.compactMap(\.speaker)) == ["发言人 1", "发言人 2"])
    }

    @Test(.enabled(if: SpeechSynthesis.available, "espeak-ng not installed"))
    func aSegmentSpanningASpeakerChangeIsSplitAtTheWord() async throws {
        let attribution = try #require(Self.attribution)
        let directory = try TestEnvironment.makeTemporaryDirectory("split")
        defer { try? FileManager.default.removeItem(at: directory) }
        let dialogue = try SyntheticDialogue.make(speakers: 2, turnCount: 6, directory: directory)
        // One ASR segment over two turns of different speakers, with a word in the middle of each turn.
        let change = try #require(
            dialogue.turns.indices.dropLast().first {
                dialogue.turns[$0].speaker != dialogue.turns[$0 + 1].speaker && $0 > 0
            })
        let (a, b) = (dialogue.turns[change], dialogue.turns[change + 1])
        func word(_ turn: SyntheticDialogue.Turn, _ text: String) -> Transcript.Word {
            let middle = (turn.start + turn.end) / 2
            return Transcript.Word(
                startMs: Int((middle - 0.2) * 1000), endMs: Int((middle + 0.2) * 1000), text: text, probability: 0.9)
        }
        let transcript = Transcript(
            language: "en", languageProbability: nil, durationMs: dialogue.samples.count / 16, speechMs: 0,
            segments: [
                Transcript.Segment(
                    startMs: Int(a.start * 1000), endMs: Int(b.end * 1000), text: "first second",
                    words: [word(a, "first"), word(b, "second")])
            ])
        let result = try await attribution.attribute(
            transcript, samples: dialogue.samples, options: .init(keepWords: true))
        try #require(result.segments.count == 2, "\(result.segments)")
        #expect(result.segments.map(\.text) == ["first", "second"])
        #expect(result.segments[0].speaker != result.segments[1].speaker)
        #expect(result.segments[0].startMs == Int(a.start * 1000) && result.segments[1].endMs == Int(b.end * 1000))
        #expect(result.segments.map(\.words.count) == [1, 1])
    }

    /// Three sentences (not in the dialogues) spoken by voice `index`.
    func enrolmentSample(voice index: Int, directory: URL) throws -> [Float] {
        var samples: [Float] = []
        for (n, line) in SpeechSynthesis.enrolmentLines.enumerated() {
            let wav = directory.appendingPathComponent("enrol-\(index)-\(n).wav")
            try SpeechSynthesis.speak(line, voice: SpeechSynthesis.voices[index], to: wav)
            samples += try TestData.decode(wav.path) + [Float](repeating: 0, count: 8_000)
        }
        return samples
    }
}
