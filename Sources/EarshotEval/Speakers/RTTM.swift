public import Foundation

/// Reading and writing the NIST Rich Transcription Time Marked format's `SPEAKER` lines:
///
///     SPEAKER <recording> <channel> <start> <duration> <NA> <NA> <speaker> <NA> <NA>
///
/// Fields are separated by any run of spaces or tabs. Blank lines, `#` comments and lines of other types
/// (`SPKR-INFO`, `LEXEME`…) are skipped.
public enum RTTM {
    /// The speaker turns of an RTTM document.
    ///
    /// - Throws: ``EvalError/Code/malformedRTTM`` naming the line when a `SPEAKER` line has fewer than eight
    ///   fields, a non-numeric or negative time.
    public static func parse(_ text: String) throws(EvalError) -> [SpeakerTurn] {
        var turns: [SpeakerTurn] = []
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let type = fields.first, type == "SPEAKER" else { continue }
            guard fields.count >= 8 else {
                throw EvalError(
                    .malformedRTTM,
                    "RTTM line \(index + 1) has \(fields.count) fields; expected "
                        + "`SPEAKER file 1 start duration <NA> <NA> speaker <NA> <NA>`")
            }
            guard let start = Double(fields[3]), let duration = Double(fields[4]), start >= 0, duration >= 0,
                start.isFinite, duration.isFinite
            else {
                throw EvalError(
                    .malformedRTTM,
                    "RTTM line \(index + 1): start `\(fields[3])` and duration `\(fields[4])` must be seconds ≥ 0")
            }
            turns.append(
                SpeakerTurn(
                    recording: String(fields[1]), speaker: String(fields[7]), start: start, end: start + duration))
        }
        return turns
    }

    /// Reads an RTTM file. - Throws: ``EvalError/Code/unreadableFile`` or ``EvalError/Code/malformedRTTM``.
    public static func read(_ url: URL) throws(EvalError) -> [SpeakerTurn] {
        try parse(ReferenceFiles.readText(url))
    }

    /// RTTM text for `turns`, one `SPEAKER` line each, times with millisecond precision.
    public static func render(_ turns: [SpeakerTurn]) -> String {
        turns.map { turn in
            let start = String(format: "%.3f", turn.start)
            let duration = String(format: "%.3f", turn.end - turn.start)
            return "SPEAKER \(turn.recording) 1 \(start) \(duration) <NA> <NA> \(turn.speaker) <NA> <NA>\n"
        }.joined()
    }
}
