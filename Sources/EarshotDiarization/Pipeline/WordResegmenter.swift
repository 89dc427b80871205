import Foundation

/// Splits ASR segments where the speaker changes, at word granularity: each word goes to the turn it overlaps most
/// (or the nearest turn when it overlaps none); a run of words with one speaker becomes one `DiarizedSegment`.
/// A segment without word timestamps is attributed whole, by overlap.
struct WordResegmenter: Sendable {
    var turns: [DiarizedTurn]

    func relabel(_ segments: [TimedSegment]) -> [DiarizedSegment] {
        guard !turns.isEmpty else { return [] }
        var out: [DiarizedSegment] = []
        for (index, segment) in segments.enumerated() {
            guard !segment.words.isEmpty else {
                let turn = speaker(segment.start, segment.end)
                out.append(
                    DiarizedSegment(
                        start: segment.start, end: segment.end, text: segment.text, words: [], speaker: turn.speaker,
                        label: turn.label, sourceIndex: index))
                continue
            }
            var runs: [(DiarizedTurn, [TimedWord])] = []
            for word in segment.words {
                let turn = speaker(word.start, word.end)
                if let last = runs.last, last.0.speaker == turn.speaker {
                    runs[runs.count - 1].1.append(word)
                } else {
                    runs.append((turn, [word]))
                }
            }
            for (n, (turn, words)) in runs.enumerated() {
                let text =
                    runs.count == 1
                    ? segment.text : words.map(\.text).joined().trimmingCharacters(in: .whitespaces)
                out.append(
                    DiarizedSegment(
                        start: n == 0 ? segment.start : words[0].start,
                        end: n == runs.count - 1 ? segment.end : words[words.count - 1].end, text: text, words: words,
                        speaker: turn.speaker, label: turn.label, sourceIndex: index))
            }
        }
        return out
    }

    /// The turn overlapping [start, end] most; the nearest one if none overlaps.
    func speaker(_ start: Double, _ end: Double) -> DiarizedTurn {
        var best = turns[0]
        var bestOverlap = -Double.infinity
        for turn in turns {
            let overlap = min(end, turn.end) - max(start, turn.start)  // negative = distance
            if overlap > bestOverlap {
                bestOverlap = overlap
                best = turn
            }
        }
        return best
    }
}
