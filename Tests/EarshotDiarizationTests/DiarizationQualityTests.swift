import EarshotDiarization
import EarshotEval
import EarshotTestSupport
import Foundation
import Testing

/// Loaded once per test process: the embedder and the synthetic dialogues (espeak-ng, generated into a temp dir).
enum Shared {
    static let embedder: ResemblyzerEmbedder? = try? ResemblyzerEmbedder(
        weightsURL: URL(fileURLWithPath: TestData.weights))
    static let dialogues: [Int: SyntheticDialogue] = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-diar-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var out: [Int: SyntheticDialogue] = [:]
        for (speakers, turns) in [(2, 10), (3, 12)] {
            out[speakers] = try? SyntheticDialogue.make(speakers: speakers, turnCount: turns, directory: dir)
        }
        // Quick turn-taking: 0.1 s pauses, bridged by the VAD, so speaker changes fall inside speech regions.
        out[-2] = try? SyntheticDialogue.make(speakers: 2, turnCount: 10, gap: 0.1, directory: dir)
        return out
    }()

    static func der(_ result: DiarizationResult, reference: [EarshotEval.SpeakerTurn]) throws -> DiarizationScore {
        let recording = reference.first?.recording ?? "audio"
        return try DiarizationScorer(configuration: .init(collar: 0.25)).score(
            reference: reference,
            hypothesis: result.turns.map {
                SpeakerTurn(recording: recording, speaker: $0.label, start: $0.start, end: $0.end)
            })
    }

    static func reference(_ dialogue: SyntheticDialogue) -> [EarshotEval.SpeakerTurn] {
        dialogue.turns.map { SpeakerTurn(speaker: $0.speaker, start: $0.start, end: $0.end) }
    }
}

@Suite(.enabled(if: TestData.hasWeights, "run scripts/setup-diarization"))
struct DiarizationQualityTests {
    /// Measured 6.7 % (collar 0.25 s) with the default configuration; the bar leaves room for BLAS rounding.
    @Test(.enabled(if: TestData.hasSample, "testdata/pyannote/sample.wav is missing (scripts/setup)"))
    func pyannoteSampleDER() throws {
        let samples = try TestData.decode(TestData.sampleWAV)
        let reference = try RTTM.read(URL(fileURLWithPath: TestData.sampleRTTM))
        let result = try Diarizer(embedder: #require(Shared.embedder)).diarize(samples: samples)
        let score = try Shared.der(result, reference: reference)
        print("pyannote sample: DER \(score.errorRate), \(result.speakerCount) speakers")
        #expect(result.speakerCount == 2)
        #expect(score.errorRate <= 0.12)
    }

    @Test(.enabled(if: SpeechSynthesis.available, "apt-get install espeak-ng"), arguments: [2, 3])
    func syntheticDialogueDER(speakers: Int) throws {
        let dialogue = try #require(Shared.dialogues[speakers])
        let result = try Diarizer(embedder: #require(Shared.embedder)).diarize(samples: dialogue.samples)
        let score = try Shared.der(result, reference: Shared.reference(dialogue))
        print("espeak-ng \(speakers) speakers: DER \(score.errorRate), found \(result.speakerCount)")
        // One speaker at a time (overlap goes to one speaker), in time order.
        for (a, b) in zip(result.turns, result.turns.dropFirst()) { #expect(a.end <= b.start) }
        #expect(result.speakerCount == speakers)
        #expect(score.errorRate <= 0.03)
    }

    /// Changes without a pause: 11.2 % DER from the 2.5 s sub-segment grid alone, 2.0 % after boundary refinement.
    @Test(.enabled(if: SpeechSynthesis.available, "apt-get install espeak-ng"))
    func speakerChangeWithoutPauseIsLocated() throws {
        let dialogue = try #require(Shared.dialogues[-2])
        let embedder = try #require(Shared.embedder)
        let result = try Diarizer(embedder: embedder).diarize(samples: dialogue.samples)
        let score = try Shared.der(result, reference: Shared.reference(dialogue))
        print("espeak-ng quick turns: DER \(score.errorRate)")
        #expect(result.speakerCount == 2)
        #expect(score.errorRate <= 0.05)
        let coarse = try Diarizer(embedder: embedder, configuration: .init(refineBoundaries: false))
            .diarize(samples: dialogue.samples)
        #expect(try Shared.der(coarse, reference: Shared.reference(dialogue)).errorRate > score.errorRate)
    }

    @Test(.enabled(if: SpeechSynthesis.available, "apt-get install espeak-ng"))
    func requestedSpeakerCountIsHonoured() throws {
        let embedder = try #require(Shared.embedder)
        let two = try #require(Shared.dialogues[2]), three = try #require(Shared.dialogues[3])
        let exact = try Diarizer(embedder: embedder, configuration: .init(speakerCount: 3)).diarize(
            samples: two.samples)
        #expect(exact.speakerCount == 3)
        let capped = try Diarizer(embedder: embedder, configuration: .init(maxSpeakers: 2)).diarize(
            samples: three.samples)
        #expect(capped.speakerCount == 2)
        let floored = try Diarizer(embedder: embedder, configuration: .init(minSpeakers: 3)).diarize(
            samples: two.samples)
        #expect(floored.speakerCount == 3)
        let known = try Diarizer(embedder: embedder, configuration: .init(speakerCount: 3)).diarize(
            samples: three.samples)
        #expect(known.speakerCount == 3)
        #expect(try Shared.der(known, reference: Shared.reference(three)).errorRate <= 0.03)
    }

    @Test(.enabled(if: SpeechSynthesis.available, "apt-get install espeak-ng"))
    func longSegmentIsSplitAtTheWordWhereTheSpeakerChanges() throws {
        let dialogue = try #require(Shared.dialogues[2])
        // One ASR segment over turns 1–2 (as Whisper might return when the pause is short), words evenly spaced.
        var words: [TimedWord] = []
        var firstWordOfTurn2 = 0
        for (n, turn) in dialogue.turns.prefix(2).enumerated() {
            if n == 1 { firstWordOfTurn2 = words.count }
            let count = 8
            let step = (turn.end - turn.start) / Double(count)
            for w in 0..<count {
                let start = turn.start + Double(w) * step
                words.append(TimedWord(start: start, end: start + step * 0.9, text: " t\(n)w\(w)"))
            }
        }
        let segment = TimedSegment(
            start: dialogue.turns[0].start, end: dialogue.turns[1].end, text: "whole", words: words)
        let result = try Diarizer(embedder: #require(Shared.embedder), configuration: .init(labelTemplate: "发言人 {n}"))
            .diarize(samples: dialogue.samples, segments: [segment])
        #expect(result.segments.count == 2)
        #expect(result.segments.first?.words.count == firstWordOfTurn2)
        #expect(result.segments.first?.label == "发言人 1")
        #expect(result.segments.last?.label == "发言人 2")
        #expect(result.segments.last?.text == "t1w0 t1w1 t1w2 t1w3 t1w4 t1w5 t1w6 t1w7")
        #expect(result.labels == ["发言人 1", "发言人 2"])
    }
}
