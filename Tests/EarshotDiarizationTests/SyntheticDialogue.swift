import EarshotAudio
import Foundation

/// A dialogue synthesised with espeak-ng voices at test (or bench) time, with exact reference turns.
///
/// Benchmarks/diarization compiles this file too (a symlink), so it imports no test module: `SpeechSynthesis` comes
/// from EarshotTestSupport in the tests (re-exported by TestData.swift) and from the benchmark's own files there.
///
/// Each turn is synthesised to a WAV in a temp dir, decoded to 16 kHz, trimmed of leading/trailing silence and
/// concatenated with `gap` seconds of silence; the reference turns are the sample spans of the trimmed speech.
struct SyntheticDialogue {
    struct Turn {
        var speaker: String
        var start: Double
        var end: Double
    }
    var samples: [Float]
    var turns: [Turn]

    /// Builds a dialogue of `turnCount` turns over the first `speakers` voices (round robin, then a couple of
    /// out-of-order turns so that speaker order is not trivially periodic). Needs `espeak-ng` on PATH.
    static func make(speakers: Int, turnCount: Int, gap: Double = 0.5, directory: URL) throws -> SyntheticDialogue {
        var order = (0..<turnCount).map { $0 % speakers }
        if turnCount > 4 { order.swapAt(turnCount - 2, turnCount - 3) }
        var samples = [Float](repeating: 0, count: Int(gap * 16_000))
        var turns: [Turn] = []
        for (n, speaker) in order.enumerated() {
            let wav = directory.appendingPathComponent("turn\(n).wav")
            let lines = SpeechSynthesis.supportCallLines
            try SpeechSynthesis.speak(lines[n % lines.count], voice: SpeechSynthesis.voices[speaker], to: wav)
            var speech = try AudioDecoder(contentsOf: wav).decodeAll()
            let first = speech.firstIndex { abs($0) > 1e-3 } ?? 0
            let last = speech.lastIndex { abs($0) > 1e-3 } ?? (speech.count - 1)
            speech = Array(speech[first...last])
            let start = Double(samples.count) / 16_000
            samples += speech
            turns.append(Turn(speaker: "S\(speaker + 1)", start: start, end: Double(samples.count) / 16_000))
            samples += [Float](repeating: 0, count: Int(gap * 16_000))
        }
        return SyntheticDialogue(samples: samples, turns: turns)
    }
}
