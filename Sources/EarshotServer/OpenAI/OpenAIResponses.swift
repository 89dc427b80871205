import EarshotHTTP
import EarshotSpeech
import Foundation

/// The bodies of OpenAI's transcription API, in its shapes: `json` (with `logprobs` when asked), `verbose_json` (with
/// each segment's `tokens` and `compression_ratio`), `diarized_json` (segments with speakers), `text`/`srt`/`vtt`,
/// and the stream events `transcript.text.delta`, `transcript.text.segment` and `transcript.text.done`.
enum OpenAIResponses {
    struct Logprob: Encodable {
        var token: String
        var bytes: [UInt8]
        var logprob: Double
    }

    struct DurationUsage: Encodable {
        var type = "duration"
        var seconds: Double
    }

    struct Simple: Encodable {
        var text: String
        var logprobs: [Logprob]?
        var usage: DurationUsage
    }

    struct Verbose: Encodable {
        struct Segment: Encodable {
            var id: Int
            var seek: Int
            var start: Double
            var end: Double
            var text: String
            var tokens: [Int]
            var temperature: Double
            var avg_logprob: Double
            var compression_ratio: Double
            var no_speech_prob: Double
        }
        struct Word: Encodable {
            var word: String
            var start: Double
            var end: Double
        }
        var task: String
        var language: String
        var duration: Double
        var text: String
        var segments: [Segment]
        var words: [Word]?
        var usage: DurationUsage
    }

    struct DiarizedSegment: Encodable {
        var type = "transcript.text.segment"
        var id: String
        var start: Double
        var end: Double
        var text: String
        var speaker: String
    }

    struct Diarized: Encodable {
        var task = "transcribe"
        var duration: Double
        var text: String
        var segments: [DiarizedSegment]
        var usage: DurationUsage
    }

    struct Delta: Encodable {
        var type = "transcript.text.delta"
        var delta: String
        var logprobs: [Logprob]?
    }

    struct Done: Encodable {
        var type = "transcript.text.done"
        var text: String
        var logprobs: [Logprob]?
        /// Earshot's: the record kept with `store=true`.
        var recordID: String?

        enum CodingKeys: String, CodingKey {
            case type, text, logprobs
            case recordID = "record_id"
        }
    }

    struct StreamError: Encodable {
        struct Detail: Encodable {
            var code: String
            var message: String
        }
        var type = "error"
        var error: Detail
    }

    static func seconds(_ milliseconds: Int) -> Double { Double(milliseconds) / 1000 }

    static func finite(_ value: Double) -> Double { value.isFinite ? value : 0 }

    static func logprobs(_ segments: [Transcript.Segment]) -> [Logprob] {
        segments.flatMap { $0.tokens.map { Logprob(token: $0.text, bytes: $0.bytes, logprob: finite($0.logprob)) } }
    }

    /// OpenAI's diarized labels: `A`, `B`, … for the diarizer's speakers 1, 2, …; names (known speakers) unchanged.
    static func speakerLabel(_ label: String?, template: String) -> String {
        guard let label else { return "A" }
        let prefix = template.replacingOccurrences(of: "{n}", with: "")
        guard label.hasPrefix(prefix), let number = Int(label.dropFirst(prefix.count)), number >= 1 else {
            return label
        }
        var n = number - 1
        var letters = ""
        repeat {
            letters = String(UnicodeScalar(UInt8(65 + n % 26))) + letters
            n = n / 26 - 1
        } while n >= 0
        return letters
    }

    /// The text of segment `index` as a delta: the text transcripts join with single spaces.
    static func delta(_ segment: Transcript.Segment, first: Bool) -> String {
        first ? segment.text : " " + segment.text
    }

    static func diarizedSegments(_ transcript: Transcript, template: String) -> [DiarizedSegment] {
        transcript.segments.enumerated().map { index, segment in
            DiarizedSegment(
                id: "seg_\(index)", start: seconds(segment.startMs), end: seconds(segment.endMs), text: segment.text,
                speaker: speakerLabel(segment.speaker, template: template))
        }
    }

    /// The whole response for `request`'s format.
    static func response(
        _ transcript: Transcript, request: OpenAIRequest, task: TranscriptionOptions.Task, speakerTemplate: String
    ) throws -> Response {
        let usage = DurationUsage(seconds: seconds(transcript.durationMs))
        switch request.format {
        case .text:
            return .text(transcript.text + "\n", contentType: "text/plain; charset=utf-8")
        case .srt:
            return .text(
                TranscriptFormatter(format: .srt).string(for: transcript), contentType: "text/plain; charset=utf-8")
        case .vtt:
            return .text(
                TranscriptFormatter(format: .vtt).string(for: transcript), contentType: "text/plain; charset=utf-8")
        case .verboseJSON:
            return try .json(
                Verbose(
                    task: task.rawValue, language: transcript.language, duration: seconds(transcript.durationMs),
                    text: transcript.text,
                    segments: transcript.segments.enumerated().map { index, segment in
                        .init(
                            id: index, seek: segment.startMs / 10, start: seconds(segment.startMs),
                            end: seconds(segment.endMs), text: segment.text, tokens: segment.tokens.map(\.id),
                            temperature: Double(request.options.temperature),
                            avg_logprob: finite(segment.averageLogProbability),
                            compression_ratio: finite(segment.compressionRatio),
                            no_speech_prob: finite(segment.noSpeechProbability))
                    },
                    words: request.words
                        ? transcript.segments.flatMap(\.words).map {
                            .init(word: $0.text, start: seconds($0.startMs), end: seconds($0.endMs))
                        } : nil, usage: usage))
        case .diarizedJSON:
            return try .json(
                Diarized(
                    duration: seconds(transcript.durationMs), text: transcript.text,
                    segments: diarizedSegments(transcript, template: speakerTemplate), usage: usage))
        case .json:
            return try .json(
                Simple(
                    text: transcript.text, logprobs: request.logprobs ? logprobs(transcript.segments) : nil,
                    usage: usage))
        }
    }

    /// One Server-Sent Event carrying `value` as JSON.
    static func event(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return "data: " + String(decoding: try encoder.encode(value), as: UTF8.self) + "\n\n"
    }
}
