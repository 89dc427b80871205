import EarshotAPI
import EarshotNotes
import EarshotSpeech
import Foundation

/// A record rendered as a file: the transcript as txt, srt, vtt or json (speaker labels replaced by their
/// display names), or a Markdown note with the title, details, summary, key points, action items and the
/// transcript with speakers and timestamps.
struct RecordExport: Sendable {
    enum Format: String, Sendable, CaseIterable {
        case txt, srt, vtt, json, md

        var contentType: String {
            switch self {
            case .txt: "text/plain; charset=utf-8"
            case .srt: "application/x-subrip; charset=utf-8"
            case .vtt: "text/vtt; charset=utf-8"
            case .json: "application/json"
            case .md: "text/markdown; charset=utf-8"
            }
        }
    }

    var title: String
    var tags: [String]
    var recordTimeMs: Int64
    var durationMs: Int
    var language: String?
    var source: String
    /// The transcript with display names already applied.
    var transcript: Transcript?
    var summary: NoteSummary?
    var translations: [String: NoteTranslation]

    init(
        title: String, tags: [String], recordTimeMs: Int64, durationMs: Int, language: String?, source: String,
        transcript: Transcript?, speakerNames: [String: String], summary: NoteSummary?,
        translations: [String: NoteTranslation]
    ) {
        self.title = title
        self.tags = tags
        self.recordTimeMs = recordTimeMs
        self.durationMs = durationMs
        self.language = language
        self.source = source
        self.transcript = transcript.map { transcript in
            var named = transcript
            for index in named.segments.indices {
                if let label = named.segments[index].speaker, let name = speakerNames[label] {
                    named.segments[index].speaker = name
                }
            }
            return named
        }
        self.summary = summary
        self.translations = translations
    }

    init(_ row: RecordRow) throws {
        self.init(
            title: row.title, tags: row.tags, recordTimeMs: row.recordTime, durationMs: row.durationMs,
            language: row.language, source: row.source, transcript: try row.transcript(),
            speakerNames: row.speakerNames, summary: try row.summary(), translations: try row.translations())
    }

    func render(_ format: Format) -> String {
        switch format {
        case .txt: formatted(.txt)
        case .srt: formatted(.srt)
        case .vtt: formatted(.vtt)
        case .json: formatted(.json)
        case .md: markdown()
        }
    }

    private func formatted(_ format: TranscriptFormatter.Format) -> String {
        guard let transcript else { return "" }
        return TranscriptFormatter(format: format, includeWords: false).string(for: transcript)
    }

    /// `H:MM:SS` for an hour or more, else `MM:SS`.
    static func clock(_ milliseconds: Int) -> String {
        let seconds = max(0, milliseconds) / 1000
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return seconds >= 3600
            ? "\(seconds / 3600):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
            : "\(two(seconds / 60)):\(two(seconds % 60))"
    }

    private func markdown() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        var lines = ["# \(title)", ""]
        var facts = [
            "- Recorded: \(formatter.string(from: Date(timeIntervalSince1970: Double(recordTimeMs) / 1000)))",
            "- Duration: \(Self.clock(durationMs))",
        ]
        if let language = transcript?.language ?? language { facts.append("- Language: \(language)") }
        facts.append("- Source: \(source)")
        if !tags.isEmpty { facts.append("- Tags: " + tags.map { "`\($0)`" }.joined(separator: " ")) }
        lines += facts + [""]
        if let summary {
            lines += ["## Summary", ""]
            if summary.method == .extractive {
                lines += ["_Extractive summary: sentences picked from the transcript (no language model)._", ""]
            }
            for warning in summary.warnings { lines += ["> ⚠ \(warning)", ""] }
            lines += [summary.abstract, ""]
            if !summary.keyPoints.isEmpty {
                lines += ["### Key points", ""]
                lines += summary.keyPoints.map { "- [\(Self.clock($0.startMs))] \($0.text)" } + [""]
            }
            if !summary.actionItems.isEmpty {
                lines += ["### Action items", ""]
                lines += summary.actionItems.map { "- [ ] [\(Self.clock($0.startMs))] \($0.text)" } + [""]
            }
        }
        lines += ["## Transcript", ""]
        for warning in transcript?.warnings ?? [] { lines += ["> ⚠ \(warning)", ""] }
        if let transcript, !transcript.segments.isEmpty {
            for segment in transcript.segments {
                let who = segment.speaker.map { " **\($0):**" } ?? ""
                lines += ["[\(Self.clock(segment.startMs))]\(who) \(segment.text)", ""]
            }
        } else {
            lines += ["_Not transcribed yet._", ""]
        }
        for language in translations.keys.sorted() {
            guard let translation = translations[language] else { continue }
            lines += ["## Translation (\(language))", ""]
            if translation.method == .speech {
                lines += ["_Translated from the speech by Whisper._", ""]
            }
            for warning in translation.warnings { lines += ["> ⚠ \(warning)", ""] }
            for segment in translation.segments {
                lines += ["[\(Self.clock(segment.startMs))] \(segment.text)", ""]
            }
        }
        return lines.joined(separator: "\n").trimmingCharacters(in: .newlines) + "\n"
    }
}
