/// `POST /open/partner/records/{record_id}/tasks`: run an offline task on a record.
public struct RecordTaskRequest: Codable, Sendable, Hashable {
    /// 0 transcribe, 1 summarize, 2 translate.
    public var taskType: Int
    /// Translation target (ISO 639-1), required for task type 2.
    public var targetLanguage: String?
    /// The ASR tier (`asr-fast`, `asr-pro`) for task type 0 and speech translation; the summarizer's model is
    /// configured on the server.
    public var model: String?
    /// For task type 2 with target `en`: `speech` translates the audio with Whisper (no language model needed);
    /// `transcript` (default) translates the transcript with the language model.
    public var source: String?
    /// For task type 0: label speakers (`{enabled, speakers?, min_speakers?, max_speakers?}`), as on transcription
    /// tasks; the record's user's voiceprints name the speakers they match.
    public var diarization: TranscriptionTaskRequest.Diarization?

    public init(
        taskType: Int, targetLanguage: String? = nil, model: String? = nil, source: String? = nil,
        diarization: TranscriptionTaskRequest.Diarization? = nil
    ) {
        self.taskType = taskType
        self.targetLanguage = targetLanguage
        self.model = model
        self.source = source
        self.diarization = diarization
    }

    enum CodingKeys: String, CodingKey {
        case model, source, diarization
        case taskType = "task_type"
        case targetLanguage = "target_language"
    }
}

/// An offline task of a record, with the states of transcription tasks.
public struct RecordTask: Codable, Sendable, Hashable {
    public var taskID: String
    public var recordID: String
    public var taskType: Int
    public var targetLanguage: String?
    /// `speech` or `transcript` for translations; nil otherwise.
    public var source: String?
    public var model: String?
    public var status: TaskStatus
    /// Percent done, 0…100.
    public var progress: Int
    /// Why it failed or was revoked, or the last error while retrying.
    public var error: String?
    /// A stable code for why it failed (`LOW_QUALITY_OUTPUT`, `NOT_CONFIGURED`, `INVALID_INPUT`), when known.
    public var errorCode: String?
    /// What the user should know about a result that succeeded (a summary that fell back to extractive, a
    /// translation with segments in the wrong language, a transcript with an uncertain language); nil when none.
    public var warnings: [String]?
    public var attempts: Int
    public var createdAtMs: Int64
    public var updatedAtMs: Int64
    public var finishedAtMs: Int64?

    public init(
        taskID: String, recordID: String, taskType: Int, targetLanguage: String?, source: String?, model: String?,
        status: TaskStatus, progress: Int, error: String?, errorCode: String? = nil, warnings: [String]? = nil,
        attempts: Int, createdAtMs: Int64, updatedAtMs: Int64, finishedAtMs: Int64?
    ) {
        self.errorCode = errorCode
        self.warnings = warnings
        self.taskID = taskID
        self.recordID = recordID
        self.taskType = taskType
        self.targetLanguage = targetLanguage
        self.source = source
        self.model = model
        self.status = status
        self.progress = progress
        self.error = error
        self.attempts = attempts
        self.createdAtMs = createdAtMs
        self.updatedAtMs = updatedAtMs
        self.finishedAtMs = finishedAtMs
    }

    enum CodingKeys: String, CodingKey {
        case model, source, status, progress, error, warnings, attempts
        case errorCode = "error_code"
        case taskID = "task_id"
        case recordID = "record_id"
        case taskType = "task_type"
        case targetLanguage = "target_language"
        case createdAtMs = "created_at_ms"
        case updatedAtMs = "updated_at_ms"
        case finishedAtMs = "finished_at_ms"
    }
}

/// `GET /open/partner/records/{record_id}/tasks`: the record's task history, newest first.
public struct RecordTaskList: Codable, Sendable, Hashable {
    public var tasks: [RecordTask]

    public init(tasks: [RecordTask]) { self.tasks = tasks }
}

/// `GET /open/partner/records/search`: records matching a query, best first.
public struct RecordSearchResults: Codable, Sendable, Hashable {
    /// Where the query matched inside a record.
    public struct Match: Codable, Sendable, Hashable {
        /// `title`, `tags` or `transcript`.
        public var field: String
        /// Start of the matching sentence (transcript matches only), to seek playback.
        public var startMs: Int?
        /// The matching text around the hit, each hit wrapped in `<em>`…`</em>` (the rest is HTML-escaped).
        public var snippet: String

        public init(field: String, startMs: Int?, snippet: String) {
            self.field = field
            self.startMs = startMs
            self.snippet = snippet
        }

        enum CodingKeys: String, CodingKey {
            case field, snippet
            case startMs = "start_ms"
        }
    }

    /// One record found.
    public struct Hit: Codable, Sendable, Hashable {
        public var record: RecordSummaryItem
        /// Relevance: the negated FTS5 bm25 of the best matching row (higher is better).
        public var score: Double
        /// The best matches, best first (at most 3).
        public var matches: [Match]

        public init(record: RecordSummaryItem, score: Double, matches: [Match]) {
            self.record = record
            self.score = score
            self.matches = matches
        }
    }

    public var query: String
    public var hits: [Hit]
    /// Offset of the next page; nil when there are no more hits.
    public var nextOffset: Int?

    public init(query: String, hits: [Hit], nextOffset: Int?) {
        self.query = query
        self.hits = hits
        self.nextOffset = nextOffset
    }

    enum CodingKeys: String, CodingKey {
        case query, hits
        case nextOffset = "next_offset"
    }
}
