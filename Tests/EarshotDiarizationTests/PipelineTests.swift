import EarshotDiarization
import Foundation
import Testing

/// A fake embedder: the "speaker" of a clip is encoded in its peak amplitude (0.1 → e1, 0.2 → e2 …), so pipeline logic is
/// tested without the neural model.
struct ToneEmbedder: SpeakerEmbedder {
    let dimension = 4
    func embed(_ clips: [ArraySlice<Float>]) throws(DiarizationError) -> [[Float]] {
        clips.map { clip in
            var v = [Float](repeating: 0, count: 4)
            let id = Int(((clip.map { abs($0) }.max() ?? 0) * 10).rounded()) - 1
            v[max(0, min(3, id))] = 1
            return v
        }
    }
}

@Suite struct PipelineTests {
    /// Speech regions at constant amplitude 0.1·speaker, separated by 1 s of silence.
    static func audio(_ speakers: [Int], seconds: Double = 3) -> [Float] {
        var out = [Float](repeating: 0, count: 16_000)
        for s in speakers {
            out += (0..<Int(seconds * 16_000)).map { i in Float(s) * 0.1 * (i % 2 == 0 ? 1 : -1) }
            out += [Float](repeating: 0, count: 16_000)
        }
        return out
    }

    @Test func labelsFollowFirstAppearanceAndTemplate() throws {
        let diarizer = try Diarizer(embedder: ToneEmbedder(), configuration: .init(labelTemplate: "发言人 {n}"))
        let result = try diarizer.diarize(samples: Self.audio([3, 1, 3, 2]))
        #expect(result.turns.map(\.speaker) == [1, 2, 1, 3])
        #expect(result.turns.map(\.label) == ["发言人 1", "发言人 2", "发言人 1", "发言人 3"])
        #expect(result.labels == ["发言人 1", "发言人 2", "发言人 3"])
        #expect(abs(result.turns[0].start - 1) < 0.1 && abs(result.turns[0].end - 4) < 0.1)
    }

    @Test func sameSpeakerAcrossShortPauseIsOneTurn() throws {
        let result = try Diarizer(embedder: ToneEmbedder()).diarize(samples: Self.audio([1, 1, 2]))
        #expect(result.turns.map(\.speaker) == [1, 2])
    }

    @Test func silenceGivesNoTurns() throws {
        let result = try Diarizer(embedder: ToneEmbedder()).diarize(samples: [Float](repeating: 0, count: 48_000))
        #expect(result.turns.isEmpty && result.labels.isEmpty)
        #expect(try Diarizer(embedder: ToneEmbedder()).diarize(samples: []).turns.isEmpty)
    }

    @Test func wordsAreSplitAtTheSpeakerChange() throws {
        // Speaker 1 speaks 1–4 s, speaker 2 5–8 s; one ASR segment spans both.
        let words = [
            TimedWord(start: 1.2, end: 1.8, text: " hello"), TimedWord(start: 2.0, end: 3.9, text: " there"),
            TimedWord(start: 4.3, end: 5.4, text: " hi"), TimedWord(start: 5.5, end: 7.0, text: " back"),
        ]
        let segments = [
            TimedSegment(start: 1.2, end: 7.0, text: " hello there hi back", words: words),
            TimedSegment(start: 5.2, end: 6.0, text: " no words"),
        ]
        let result = try Diarizer(embedder: ToneEmbedder()).diarize(samples: Self.audio([1, 2]), segments: segments)
        #expect(result.segments.map(\.text) == ["hello there", "hi back", " no words"])
        #expect(result.segments.map(\.label) == ["Speaker 1", "Speaker 2", "Speaker 2"])
        #expect(result.segments.map(\.sourceIndex) == [0, 0, 1])
        #expect(result.segments[1].start == 4.3 && result.segments[0].end == 3.9)
    }

    @Test func speakerCountOverridesThreshold() throws {
        let samples = Self.audio([1, 2, 3, 1])
        #expect(
            try Diarizer(embedder: ToneEmbedder(), configuration: .init(speakerCount: 2)).diarize(samples: samples)
                .speakerCount == 2)
        #expect(
            try Diarizer(embedder: ToneEmbedder(), configuration: .init(maxSpeakers: 1)).diarize(samples: samples)
                .speakerCount == 1)
        #expect(try Diarizer(embedder: ToneEmbedder()).diarize(samples: samples).speakerCount == 3)
    }

    @Test func impossibleConfigurationsAreRefused() {
        #expect(throws: DiarizationError.self) {
            try Diarizer(embedder: ToneEmbedder(), configuration: .init(speakerCount: 0))
        }
        #expect(throws: DiarizationError.self) {
            try Diarizer(embedder: ToneEmbedder(), configuration: .init(minSpeakers: 3, maxSpeakers: 2))
        }
    }
}
