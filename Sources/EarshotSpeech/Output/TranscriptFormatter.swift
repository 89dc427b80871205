import Foundation

/// Writes a ``Transcript`` as plain text, SubRip, WebVTT, tab-separated values or JSON.
///
/// | format | shape |
/// |---|---|
/// | `txt` | one segment per line |
/// | `srt` | numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, blank line after each |
/// | `vtt` | `WEBVTT` header, the transcript's warnings as `NOTE` blocks, cues `HH:MM:SS.mmm --> HH:MM:SS.mmm` |
/// | `tsv` | header `start\tend\ttext`, times in integer milliseconds (as whisper.cpp writes them) |
/// | `json` | `{"language", "language_probability", "duration_ms", "segments": [{speaker, start_ms, end_ms, text, words}], "warnings"}` (warnings only when there are some) |
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

    /// Whether segments can be written as they are decoded: every format but `json`. Streamed output equals
    /// ``string(for:)`` for a transcript without speakers or warnings: ``streamHeader(speakers:)``, then each
    /// ``piece(_:index:speakers:)``.
    public var streams: Bool { format != .json }

    /// What comes before the first segment (`WEBVTT`, the tsv header); empty for txt and srt.
    public func streamHeader(speakers: Bool = false) -> String {
        switch format {
        case .vtt: "WEBVTT\n\n"
        case .tsv: speakers ? "start\tend\ttext\tspeaker\n" : "start\tend\ttext\n"
        case .txt, .srt, .json: ""
        }
    }

    /// Segment `index` (from 0) as the whole output writes it; empty for json.
    public func piece(_ segment: Transcript.Segment, index: Int, speakers: Bool = false) -> String {
        switch format {
        case .txt:
            return spoken(segment) + "\n"
        case .srt:
            return "\(index + 1)\n" + Self.timestamp(segment.startMs, separator: ",") + " --> "
                + Self.timestamp(segment.endMs, separator: ",") + "\n" + spoken(segment) + "\n\n"
        case .vtt:
            let cue = segment.speaker.map { "<v \($0)>\(segment.text)" } ?? segment.text
            return Self.timestamp(segment.startMs, separator: ".") + " --> "
                + Self.timestamp(segment.endMs, separator: ".") + "\n" + cue + "\n\n"
        case .tsv:
            let text = segment.text.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ")
            return "\(segment.startMs)\t\(segment.endMs)\t\(text)" + (speakers ? "\t\(segment.speaker ?? "")" : "") + "\n"
        case .json:
            return ""
        }
    }

    private func pieces(_ transcript: Transcript, speakers: Bool = false) -> String {
        transcript.segments.enumerated().map { piece($0.element, index: $0.offset, speakers: speakers) }.joined()
    }

    private func text(_ transcript: Transcript) -> String { pieces(transcript) }

    private func subRip(_ transcript: Transcript) -> String { pieces(transcript) }

    private func webVTT(_ transcript: Transcript) -> String {
        // Warnings as NOTE blocks (comments every WebVTT reader skips); "-->" may not appear in one.
        streamHeader()
            + transcript.warnings.map { "NOTE \($0.replacingOccurrences(of: "-->", with: "->"))\n\n" }.joined()
            + pieces(transcript)
    }

    private func tabSeparated(_ transcript: Transcript) -> String {
        let speakers = transcript.segments.contains { $0.speaker != nil }
        return streamHeader(speakers: speakers) + pieces(transcript, speakers: speakers)
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
        var warnings: [String]?
    }

    private func json(_ transcript: Transcript) -> String {
        let body = JSONTranscript(
            language: transcript.language, language_probability: transcript.languageProbability,
            duration_ms: transcript.durationMs,
            segments: transcript.segments.map {
                .init(
                    speaker: $0.speaker, start_ms: $0.startMs, end_ms: $0.endMs, text: $0.text,
                    words: includeWords && !$0.words.isEmpty ? $0.words : nil)
            }, warnings: transcript.warnings.isEmpty ? nil : transcript.warnings)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain values cannot fail.
        let data = (try? encoder.encode(body)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
