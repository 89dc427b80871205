import EarshotAudio
import EarshotSpeech
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotLive

/// Server VAD over a buffer fed 100 ms at a time, as a session feeds it: a long turn whose pauses are all shorter
/// than `silence_duration_ms` is one turn without splitting, and is cut inside its pauses with it.
@Suite struct TurnDetectorTests {
    /// JFK's speech ranges (Silero's, at the detector's own settings) joined with `pause` of silence between them,
    /// after 1 s of silence and followed by 1.5 s: one long turn with short pauses. Returns the audio and where its
    /// pauses are.
    static func longTurn(pause: Int, detector: VoiceActivityDetector) throws -> ([Float], [Range<Int>]) {
        let jfk = try AudioDecoder(contentsOf: TestEnvironment.jfk).decodeAll()
        var options = VoiceActivityOptions()
        options.minimumSilence = .milliseconds(100)
        options.speechPadding = .zero
        let ranges = try detector.speechRanges(in: jfk, options: options)
        var audio = [Float](repeating: 0, count: 16_000)
        var pauses: [Range<Int>] = []
        for (index, range) in ranges.enumerated() {
            if index > 0 {
                pauses.append(audio.count..<audio.count + pause)
                audio += [Float](repeating: 0, count: pause)
            }
            audio += jfk[range]
        }
        audio += [Float](repeating: 0, count: 24_000)
        return (audio, pauses)
    }

    /// Feeds `audio` in 100 ms steps, committing as a session does: the changes, with positions from the start.
    static func feed(_ audio: [Float], to turns: inout TurnDetector) throws -> [TurnDetector.Change] {
        var changes: [TurnDetector.Change] = []
        var buffer: [Float] = []
        var offset = 0
        for step in stride(from: 0, to: audio.count, by: 1_600) {
            buffer += audio[step..<min(audio.count, step + 1_600)]
            for change in try turns.update(buffer, start: offset) {
                switch change {
                case .started(let at):
                    changes.append(.started(at: offset + at))
                case .stopped(let start, let end):
                    changes.append(.stopped(start: offset + start, end: offset + end))
                    buffer.removeFirst(end)
                    offset += end
                case .paused(let start, let end, let cut):
                    changes.append(.paused(start: offset + start, end: offset + end, cut: offset + cut))
                    buffer.removeFirst(cut)
                    turns.droppedFirst(cut)
                    offset += cut
                }
            }
        }
        return changes
    }

    @Test(.enabled(if: TestEnvironment.exist(TestEnvironment.jfk), "needs jfk.wav: run `make models`"))
    func aLongTurnIsCutInsideItsPauses() throws {
        let detector = try VoiceActivityDetector()
        let (audio, pauses) = try Self.longTurn(pause: 4_800, detector: detector)
        try #require(pauses.count >= 2, "JFK's clip has pauses")

        // Whole: 300 ms pauses are shorter than the 500 ms that end a turn.
        let stream = try VoiceActivityStream()
        var whole = TurnDetector(stream: stream)
        let once = try Self.feed(audio, to: &whole)
        #expect(once.count == 2, "\(once)")
        guard case .started = once.first, case .stopped = once.last else {
            Issue.record("expected one turn: \(once)")
            return
        }

        // Split: each cut lies inside one of the pauses, pieces are at least 2 s, and the turn still ends once.
        var split = TurnDetector(stream: stream, splitting: TurnDetector.Splitting())
        let changes = try Self.feed(audio, to: &split)
        let cuts = changes.compactMap { change -> (start: Int, end: Int, cut: Int)? in
            if case .paused(let start, let end, let cut) = change { return (start, end, cut) }
            return nil
        }
        #expect(!cuts.isEmpty, "\(changes)")
        for cut in cuts {
            #expect(pauses.contains { $0.contains(cut.cut) }, "cut at \(cut.cut) is not in a pause: \(pauses)")
            #expect(cut.end - cut.start >= 2 * 16_000 - 1_600)
        }
        #expect(changes.filter { if case .stopped = $0 { true } else { false } }.count == 1, "\(changes)")
        if case .stopped = changes.last {} else { Issue.record("the turn did not end: \(changes)") }
    }

    @Test func theLongestPauseLateEnoughWinsOnceTheTurnIsLong() {
        let splitting = TurnDetector.Splitting()
        // Speech 0–1 s, 1.5–3 s, 3.25–6.5 s, 6.9–7 s (16 kHz); the turn began at 0.
        let ranges = [0..<16_000, 24_000..<48_000, 52_000..<104_000, 110_400..<112_000]
        // Not yet 6 s long: no cut.
        #expect(TurnDetector.pause(in: ranges, turnStart: 0, count: 95_000, splitting) == nil)
        // The 0.5 s pause at 1 s begins too early (a 1 s piece); of the later ones the 0.4 s pause is longest.
        #expect(TurnDetector.pause(in: ranges, turnStart: 0, count: 112_000, splitting) == 104_000..<110_400)
        // A pause shorter than 200 ms is never a cut.
        #expect(TurnDetector.pause(in: [0..<48_000, 50_000..<112_000], turnStart: 0, count: 112_000, splitting) == nil)
    }
}
