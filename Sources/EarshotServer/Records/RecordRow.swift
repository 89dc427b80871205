import EarshotAPI
import EarshotAudio
import EarshotNotes
import EarshotSpeech
import EarshotStore
import Foundation

/// A row of `records`, with its JSON columns decoded.
struct RecordRow: Sendable, Decodable {
    let id: String
    let partnerID: String
    let userID: String?
    let fileID: String
    let title: String
    let tagsJSON: String
    let recordTime: Int64
    let durationMs: Int
    let language: String?
    let source: String
    let envelope: [UInt8]?
    let transcriptJSON: String?
    let speakerNamesJSON: String
    let summaryJSON: String?
    let translationsJSON: String
    let createdAt: Int64
    let updatedAt: Int64

    /// Every column but the envelope and the large JSON documents (for lists and search hits), in `dialect`: the
    /// translations' languages only (`{"fr":0}`), built with SQLite's or PostgreSQL's JSON functions.
    static func listColumns(_ dialect: SQLDialect) -> String {
        let languages =
            dialect == .postgresql
            ? "(SELECT COALESCE(json_object_agg(key, 0), '{}')::text FROM json_each(records.translations::json))"
            : "(SELECT COALESCE(json_group_object(key, 0), '{}') FROM json_each(records.translations))"
        return "id, partner_id, user_id, file_id, title, tags, record_time, duration_ms, language, source, "
            + "CASE WHEN transcript IS NULL THEN 0 ELSE 1 END AS has_transcript, "
            + "CASE WHEN summary IS NULL THEN 0 ELSE 1 END AS has_summary, \(languages) AS translations, "
            + "'{}' AS speaker_names, created_at, updated_at"
    }
    static let columns =
        "id, partner_id, user_id, file_id, title, tags, record_time, duration_ms, language, source, envelope, "
        + "transcript, speaker_names, summary, translations, created_at, updated_at"

    enum CodingKeys: String, CodingKey {
        case id, title, language, source, envelope
        case partnerID = "partner_id"
        case userID = "user_id"
        case fileID = "file_id"
        case tagsJSON = "tags"
        case recordTime = "record_time"
        case durationMs = "duration_ms"
        case transcriptJSON = "transcript"
        case speakerNamesJSON = "speaker_names"
        case summaryJSON = "summary"
        case translationsJSON = "translations"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    var tags: [String] { (try? JSONDecoder().decode([String].self, from: Data(tagsJSON.utf8))) ?? [] }
    var speakerNames: [String: String] { SpeakerNames.decode(speakerNamesJSON) }
    func transcript() throws -> Transcript? {
        try transcriptJSON.map { try JSONDecoder().decode(Transcript.self, from: Data($0.utf8)) }
    }
    func summary() throws -> NoteSummary? {
        try summaryJSON.map { try JSONDecoder().decode(NoteSummary.self, from: Data($0.utf8)) }
    }
    func translations() throws -> [String: NoteTranslation] {
        try JSONDecoder().decode([String: NoteTranslation].self, from: Data(translationsJSON.utf8))
    }
}

/// The flags a list row carries instead of the documents.
struct RecordListRow: Sendable, Decodable {
    let row: RecordRow
    let hasTranscript: Bool
    let hasSummary: Bool

    init(from decoder: any Decoder) throws {
        row = try RecordRow(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hasTranscript = try container.decode(Bool.self, forKey: .hasTranscript)
        hasSummary = try container.decode(Bool.self, forKey: .hasSummary)
    }

    enum CodingKeys: String, CodingKey {
        case hasTranscript = "has_transcript"
        case hasSummary = "has_summary"
    }

    var wire: RecordSummaryItem {
        row.wire(hasTranscript: hasTranscript, hasSummary: hasSummary)
    }
}

extension RecordRow {
    func wire(hasTranscript: Bool, hasSummary: Bool) -> RecordSummaryItem {
        let languages =
            (try? JSONDecoder().decode([String: AnyDecodable].self, from: Data(translationsJSON.utf8)))?.keys.sorted()
            ?? []
        return RecordSummaryItem(
            recordID: id, fileID: fileID, userID: userID, title: title, tags: tags, recordTimeMs: recordTime,
            durationMs: durationMs, language: language, source: source, hasTranscript: hasTranscript,
            hasSummary: hasSummary, translations: languages, createdAtMs: createdAt, updatedAtMs: updatedAt)
    }

    /// The full detail (`tasks`: the latest few, newest first).
    func detail(tasks: [RecordTask]) throws -> RecordDetail {
        let names = speakerNames
        let transcript = try transcript()
        let summary = try summary()
        let envelope = try envelope.map { bytes in
            let decoded = try AmplitudeEnvelope(encoded: bytes)
            return RecordEnvelope(
                pointsPerSecond: decoded.pointsPerSecond, count: decoded.count, data: Data(bytes).base64EncodedString())
        }
        return RecordDetail(
            record: wire(hasTranscript: transcript != nil, hasSummary: summary != nil), envelope: envelope,
            speakerNames: names,
            transcript: transcript.map { transcript in
                RecordTranscript(
                    language: transcript.language, durationMs: transcript.durationMs,
                    sentences: transcript.segments.map { segment in
                        RecordSentence(
                            speaker: segment.speaker.map { names[$0] ?? $0 }, startMs: segment.startMs,
                            endMs: segment.endMs, text: segment.text,
                            words: segment.words.isEmpty
                                ? nil
                                : segment.words.map { RecordWord(startMs: $0.startMs, endMs: $0.endMs, text: $0.text) })
                    }, warnings: transcript.warnings)
            },
            summary: summary.map(Self.wire), translations: try translations().mapValues { Self.wire($0, names: names) },
            tasks: tasks)
    }

    static func wire(_ summary: NoteSummary) -> RecordSummary {
        RecordSummary(
            abstract: summary.abstract,
            keyPoints: summary.keyPoints.map { RecordPoint(text: $0.text, startMs: $0.startMs, endMs: $0.endMs) },
            actionItems: summary.actionItems.map { RecordPoint(text: $0.text, startMs: $0.startMs, endMs: $0.endMs) },
            method: summary.method.rawValue, model: summary.model, language: summary.language,
            warnings: summary.warnings)
    }

    static func wire(_ translation: NoteTranslation, names: [String: String]) -> RecordTranslation {
        RecordTranslation(
            targetLanguage: translation.targetLanguage,
            sentences: translation.segments.map {
                RecordSentence(
                    speaker: $0.speaker.map { names[$0] ?? $0 }, startMs: $0.startMs, endMs: $0.endMs, text: $0.text)
            }, method: translation.method.rawValue, model: translation.model,
            detectedLanguage: translation.detectedLanguage, warnings: translation.warnings)
    }
}

/// Skips any JSON value (to read only the keys of an object).
private struct AnyDecodable: Decodable {
    init(from decoder: any Decoder) throws {}
}
