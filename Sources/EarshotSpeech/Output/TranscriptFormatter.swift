import Foundation

/// Writes a ``Transcript`` as plain text, SubRip, WebVTT, tab-separated values or JSON.
///
/// | format | shape |
/// |---|---|
/// | `txt` | one segment per line |
/// | `srt` | numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, blank line after each |
/// | `vtt` | `WEBVTT` header, cues `HH:MM:SS.mmm --> HH:MM:SS.mmm` |
/// | `tsv` | header `start\tend\ttext`, times in integer milliseconds (as whisper.cpp writes them) |
/// | `json` | `{"language", "language_probability", "duration_ms", "segments": [{speaker, start_ms, end_ms, text, words}]}` |
///
/// Speakers, when set, prefix the text as `[SPEAKER] ` in txt/srt, as a `<v SPEAKER>` voice tag in vtt, and
/// as a fourth column in tsv. Output always ends with a newline.
public struct TranscriptFormatter: Sendable {
    /// An output format.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        case txt, srt, vtt, json, tsv

        /// The file extension (without the dot).
        public var fileExtension: String { rawValue }
    }

    /// The format written.
    public let format: Format
    /// Include per-word times in JSON.
    public var includeWords: Bool

    /// A formatter for `format`.
    public init(format: Format, includeWords: Bool = true) {
        self.format = format
        self.includeWords = includeWords
    }

    /// The transcript in this format.
    public func string(for transcript: Transcript) -> String {
        switch format {
        case .txt: return text(transcript)
        case .srt: return subRip(transcript)
        case .vtt: return webVTT(transcript)
        case .tsv: return tabSeparated(transcript)
        case .json: return json(transcript)
        }
    }

    /// `milliseconds` as `HH:MM:SS<separator>mmm`.
    public static func timestamp(_ milliseconds: Int, separator: Character) -> String {
        let ms = max(0, milliseconds)
        let hours = ms / 3_600_000
        let minutes = ms / 60_000 % 60
        let seconds = ms / 1000 % 60
        return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2))\(separator)\(pad(ms % 1000, 3))"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private func spoken(_ segment: Transcript.Segment) -> String {
        segment.speaker.map { "[\($0)] \(segment.text)" } ?? segment.text
    }

    private func text(_ transcript: Transcript) -> String {
        transcript.segments.map { spoken($0) + "\n" }.joined()
    }

    private func subRip(_ transcript: Transcript) -> String {
        transcript.segments.enumerated().map { index, segment in
            "\(index + 1)\n" + Self.timestamp(segment.startMs, separator: ",") + " --> "
                + Self.timestamp(segment.endMs, separator: ",") + "\n" + spoken(segment) + "\n\n"
        }.joined()
    }

    private func webVTT(_ transcript: Transcript) -> String {
        "WEBVTT\n\n"
            + transcript.segments.map { segment in
                let cue = segment.speaker.map { "<v \($0)>\(segment.text)" } ?? segment.text
                return Self.timestamp(segment.startMs, separator: ".") + " --> "
                    + Self.timestamp(segment.endMs, separator: ".") + "\n" + cue + "\n\n"
            }.joined()
    }

    private func tabSeparated(_ transcript: Transcript) -> String {
        let speakers = transcript.segments.contains { $0.speaker != nil }
        let header = speakers ? "start\tend\ttext\tspeaker\n" : "start\tend\ttext\n"
        return header
            + transcript.segments.map { segment in
                let text = segment.text.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(
                    of: "\n", with: " ")
                return "\(segment.startMs)\t\(segment.endMs)\t\(text)" + (speakers ? "\t\(segment.speaker ?? "")" : "")
                    + "\n"
            }.joined()
    }

    /// The seed's segment shape `{speaker, start_ms, end_ms, text}` plus `words` (and the transcript's language).
    private struct JSONTranscript: Encodable {
        struct Segment: Encodable {
            var speaker: String?
            var start_ms: Int
            var end_ms: Int
            var text: String
            var words: [Transcript.Word]?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(speaker, forKey: .speaker)  // explicit null, as in the seed
                try container.encode(start_ms, forKey: .start_ms)
                try container.encode(end_ms, forKey: .end_ms)
                try container.encode(text, forKey: .text)
                try container.encodeIfPresent(words, forKey: .words)
            }
            enum CodingKeys: String, CodingKey { case speaker, start_ms, end_ms, text, words }
        }
        var language: String
        var language_probability: Double?
        var duration_ms: Int
        var segments: [Segment]
    }

    private func json(_ transcript: Transcript) -> String {
        let body = JSONTranscript(
            language: transcript.language, language_probability: transcript.languageProbability,
            duration_ms: transcript.durationMs,
            segments: transcript.segments.map {
                .init(
                    speaker: $0.speaker, start_ms: $0.startMs, end_ms: $0.endMs, text: $0.text,
                    words: includeWords && !$0.words.isEmpty ? $0.words : nil)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain values cannot fail.
        let data = (try? encoder.encode(body)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
