/// `POST /open/partner/records`: make a record of an uploaded file.
///
/// A user token records its own user's file; a partner token names the file and, optionally, the user the record
/// belongs to (`user_id`, which must match the file's user when the file was uploaded with a user token).
public struct RecordCreateRequest: Codable, Sendable, Hashable {
    /// The `FileId` (or a `DownloadUrl`) returned by complete-upload.
    public var fileID: String
    /// The partner's user owning the record (partner tokens only).
    public var userID: String?
    /// Title shown in lists; defaults to the record time ("Recording 2026-11-29 19:50").
    public var title: String?
    /// Free-form tags (at most 32, each 1–64 characters).
    public var tags: [String]?
    /// When the recording was made (Unix milliseconds); defaults to now.
    public var recordTimeMs: Int64?
    /// Spoken language (ISO 639-1), when known; tasks detect it otherwise.
    public var language: String?
    /// `device:<serial>`, `phone` or `import` (default).
    public var source: String?

    public init(
        fileID: String, userID: String? = nil, title: String? = nil, tags: [String]? = nil, recordTimeMs: Int64? = nil,
        language: String? = nil, source: String? = nil
    ) {
        self.fileID = fileID
        self.userID = userID
        self.title = title
        self.tags = tags
        self.recordTimeMs = recordTimeMs
        self.language = language
        self.source = source
    }

    enum CodingKeys: String, CodingKey {
        case title, tags, language, source
        case fileID = "file_id"
        case userID = "user_id"
        case recordTimeMs = "record_time_ms"
    }
}

/// `PATCH /open/partner/records/{record_id}`: the fields to change (absent fields stay as they are).
public struct RecordUpdateRequest: Codable, Sendable, Hashable {
    public var title: String?
    /// Replaces every tag.
    public var tags: [String]?
    /// Display names of speaker labels (`{"SPEAKER_00": "Alice"}`), merged into the record's map; an empty name
    /// removes the entry. Exports and the detail show the names.
    public var speakerNames: [String: String]?

    public init(title: String? = nil, tags: [String]? = nil, speakerNames: [String: String]? = nil) {
        self.title = title
        self.tags = tags
        self.speakerNames = speakerNames
    }

    enum CodingKeys: String, CodingKey {
        case title, tags
        case speakerNames = "speaker_names"
    }
}

/// A record as lists show it.
public struct RecordSummaryItem: Codable, Sendable, Hashable {
    public var recordID: String
    public var fileID: String
    public var userID: String?
    public var title: String
    public var tags: [String]
    public var recordTimeMs: Int64
    public var durationMs: Int
    public var language: String?
    public var source: String
    public var hasTranscript: Bool
    public var hasSummary: Bool
    /// Target languages with a translation.
    public var translations: [String]
    public var createdAtMs: Int64
    public var updatedAtMs: Int64
    /// The record's tasks still queued or running, oldest first (lists show "Transcribing 40 %" from these and
    /// poll while any is left); empty when none. Absent from servers before it existed.
    public var runningTasks: [RecordTask]?

    public init(
        recordID: String, fileID: String, userID: String?, title: String, tags: [String], recordTimeMs: Int64,
        durationMs: Int, language: String?, source: String, hasTranscript: Bool, hasSummary: Bool,
        translations: [String], createdAtMs: Int64, updatedAtMs: Int64, runningTasks: [RecordTask]? = nil
    ) {
        self.runningTasks = runningTasks
        self.recordID = recordID
        self.fileID = fileID
        self.userID = userID
        self.title = title
        self.tags = tags
        self.recordTimeMs = recordTimeMs
        self.durationMs = durationMs
        self.language = language
        self.source = source
        self.hasTranscript = hasTranscript
        self.hasSummary = hasSummary
        self.translations = translations
        self.createdAtMs = createdAtMs
        self.updatedAtMs = updatedAtMs
    }

    enum CodingKeys: String, CodingKey {
        case title, tags, language, source, translations
        case recordID = "record_id"
        case fileID = "file_id"
        case userID = "user_id"
        case recordTimeMs = "record_time_ms"
        case durationMs = "duration_ms"
        case hasTranscript = "has_transcript"
        case hasSummary = "has_summary"
        case createdAtMs = "created_at_ms"
        case updatedAtMs = "updated_at_ms"
        case runningTasks = "running_tasks"
    }
}

/// `GET /open/partner/records`: one page, newest `record_time_ms` first.
public struct RecordList: Codable, Sendable, Hashable {
    public var records: [RecordSummaryItem]
    /// Pass as `cursor` for the next page; nil on the last page. Records inserted meanwhile never shift a page.
    public var nextCursor: String?

    public init(records: [RecordSummaryItem], nextCursor: String?) {
        self.records = records
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case records
        case nextCursor = "next_cursor"
    }
}

/// The waveform overview of a record's audio.
public struct RecordEnvelope: Codable, Sendable, Hashable {
    /// Buckets per second.
    public var pointsPerSecond: Int
    /// Number of buckets.
    public var count: Int
    /// Base64 of the quantised envelope: `"EENV"`, version, points per second, sample rate, count, then per
    /// bucket minimum (Int8 ×127), maximum (Int8 ×127), RMS (UInt8 ×255) — see docs/audio.md.
    public var data: String

    public init(pointsPerSecond: Int, count: Int, data: String) {
        self.pointsPerSecond = pointsPerSecond
        self.count = count
        self.data = data
    }

    enum CodingKeys: String, CodingKey {
        case count, data
        case pointsPerSecond = "points_per_second"
    }
}

/// One word of a transcript sentence.
public struct RecordWord: Codable, Sendable, Hashable {
    public var startMs: Int
    public var endMs: Int
    public var text: String

    public init(startMs: Int, endMs: Int, text: String) {
        self.startMs = startMs
        self.endMs = endMs
        self.text = text
    }

    enum CodingKeys: String, CodingKey {
        case text
        case startMs = "start_ms"
        case endMs = "end_ms"
    }
}

/// One sentence of a record's transcript; `speaker` is the display name when one was set, else the label.
public struct RecordSentence: Codable, Sendable, Hashable {
    public var speaker: String?
    public var startMs: Int
    public var endMs: Int
    public var text: String
    public var words: [RecordWord]?

    public init(speaker: String?, startMs: Int, endMs: Int, text: String, words: [RecordWord]? = nil) {
        self.speaker = speaker
        self.startMs = startMs
        self.endMs = endMs
        self.text = text
        self.words = words
    }

    enum CodingKeys: String, CodingKey {
        case speaker, text, words
        case startMs = "start_ms"
        case endMs = "end_ms"
    }
}

/// A record's transcript.
public struct RecordTranscript: Codable, Sendable, Hashable {
    public var language: String
    public var durationMs: Int
    public var sentences: [RecordSentence]
    /// What the reader should know about how it was made (an uncertain language, speech with no words recognised,
    /// a WAV converted on the fly); empty when none.
    public var warnings: [String]

    public init(language: String, durationMs: Int, sentences: [RecordSentence], warnings: [String] = []) {
        self.language = language
        self.durationMs = durationMs
        self.sentences = sentences
        self.warnings = warnings
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        language = try container.decode(String.self, forKey: .language)
        durationMs = try container.decode(Int.self, forKey: .durationMs)
        sentences = try container.decode([RecordSentence].self, forKey: .sentences)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings) ?? []
    }

    enum CodingKeys: String, CodingKey {
        case language, sentences, warnings
        case durationMs = "duration_ms"
    }
}

/// A key point or action item with the stretch of the recording it came from.
public struct RecordPoint: Codable, Sendable, Hashable {
    public var text: String
    public var startMs: Int
    public var endMs: Int

    public init(text: String, startMs: Int, endMs: Int) {
        self.text = text
        self.startMs = startMs
        self.endMs = endMs
    }

    enum CodingKeys: String, CodingKey {
        case text
        case startMs = "start_ms"
        case endMs = "end_ms"
    }
}

/// A record's summary. `method` is `llm`, `extractive` (sentences picked from the transcript) or `speech`.
public struct RecordSummary: Codable, Sendable, Hashable {
    public var abstract: String
    public var keyPoints: [RecordPoint]
    public var actionItems: [RecordPoint]
    public var method: String
    public var model: String?
    public var language: String?
    /// Why the summary is what it is, e.g. why the extractive summary stands in for the language model's.
    public var warnings: [String]

    public init(
        abstract: String, keyPoints: [RecordPoint], actionItems: [RecordPoint], method: String, model: String?,
        language: String?, warnings: [String] = []
    ) {
        self.abstract = abstract
        self.keyPoints = keyPoints
        self.actionItems = actionItems
        self.method = method
        self.model = model
        self.language = language
        self.warnings = warnings
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        abstract = try container.decode(String.self, forKey: .abstract)
        keyPoints = try container.decode([RecordPoint].self, forKey: .keyPoints)
        actionItems = try container.decode([RecordPoint].self, forKey: .actionItems)
        method = try container.decode(String.self, forKey: .method)
        model = try container.decodeIfPresent(String.self, forKey: .model)
        language = try container.decodeIfPresent(String.self, forKey: .language)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings) ?? []
    }

    enum CodingKeys: String, CodingKey {
        case abstract, method, model, language, warnings
        case keyPoints = "key_points"
        case actionItems = "action_items"
    }
}

/// A record's transcript in another language, sentence by sentence with the original times.
public struct RecordTranslation: Codable, Sendable, Hashable {
    public var targetLanguage: String
    public var sentences: [RecordSentence]
    /// `llm` or `speech` (Whisper's speech-to-English translation).
    public var method: String
    public var model: String?
    public var detectedLanguage: String?
    /// Quality notes, e.g. segments not in the target language; empty when none.
    public var warnings: [String]

    public init(
        targetLanguage: String, sentences: [RecordSentence], method: String, model: String?,
        detectedLanguage: String?, warnings: [String]
    ) {
        self.targetLanguage = targetLanguage
        self.sentences = sentences
        self.method = method
        self.model = model
        self.detectedLanguage = detectedLanguage
        self.warnings = warnings
    }

    enum CodingKeys: String, CodingKey {
        case sentences, method, model, warnings
        case targetLanguage = "target_language"
        case detectedLanguage = "detected_language"
    }
}

/// `GET /open/partner/records/{record_id}`: everything about a record.
public struct RecordDetail: Codable, Sendable, Hashable {
    public var record: RecordSummaryItem
    public var envelope: RecordEnvelope?
    public var speakerNames: [String: String]
    public var transcript: RecordTranscript?
    public var summary: RecordSummary?
    /// Keyed by target language.
    public var translations: [String: RecordTranslation]
    /// The latest offline tasks, newest first (the whole history is at `…/tasks`).
    public var tasks: [RecordTask]

    public init(
        record: RecordSummaryItem, envelope: RecordEnvelope?, speakerNames: [String: String],
        transcript: RecordTranscript?, summary: RecordSummary?, translations: [String: RecordTranslation],
        tasks: [RecordTask]
    ) {
        self.record = record
        self.envelope = envelope
        self.speakerNames = speakerNames
        self.transcript = transcript
        self.summary = summary
        self.translations = translations
        self.tasks = tasks
    }

    enum CodingKeys: String, CodingKey {
        case record, envelope, transcript, summary, translations, tasks
        case speakerNames = "speaker_names"
    }
}
