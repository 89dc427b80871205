/// One segment of a finished transcript: `{speaker, start_ms, end_ms, text}` as in the seed (speaker is `null`
/// until diarization labels it).
public struct TranscriptSegment: Codable, Sendable, Hashable {
    public var speaker: String?
    public var startMs: Int
    public var endMs: Int
    public var text: String

    public init(speaker: String?, startMs: Int, endMs: Int, text: String) {
        self.speaker = speaker
        self.startMs = startMs
        self.endMs = endMs
        self.text = text
    }

    enum CodingKeys: String, CodingKey {
        case speaker, text
        case startMs = "start_ms"
        case endMs = "end_ms"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(speaker, forKey: .speaker)  // explicit null, as the seed shows it
        try container.encode(startMs, forKey: .startMs)
        try container.encode(endMs, forKey: .endMs)
        try container.encode(text, forKey: .text)
    }
}

/// `GET /open/partner/transcriptions/{task_id}`: a transcription task and, once `SUCCESS`, its segments. Also the
/// body of the task webhook.
public struct TranscriptionTask: Codable, Sendable, Hashable {
    public var taskID: String
    public var status: TaskStatus
    /// Percent done, 0…100.
    public var progress: Int
    public var model: String
    /// The language given or detected (nil until known).
    public var language: String?
    /// Length of the audio in milliseconds (nil until decoded).
    public var durationMs: Int?
    /// The transcript (`SUCCESS` only; nil otherwise).
    public var segments: [TranscriptSegment]?
    /// Why the task failed or was revoked (`FAILURE`, `REVOKED`), or the last error while retrying.
    public var error: String?
    /// A stable code for why it failed (`INVALID_INPUT`…), when known.
    public var errorCode: String?
    public var fileID: String
    public var userID: String?
    /// The record in the library this task is a job of (its transcript becomes the record's).
    public var recordID: String?
    /// What the user should know about how the audio was read (a WAV converted on the fly, a truncated file);
    /// nil when there is nothing to say.
    public var warnings: [String]?
    /// Attempts made so far (a task is retried a bounded number of times).
    public var attempts: Int
    public var createdAtMs: Int64
    public var updatedAtMs: Int64
    public var finishedAtMs: Int64?

    public init(
        taskID: String, status: TaskStatus, progress: Int, model: String, language: String?, durationMs: Int?,
        segments: [TranscriptSegment]?, error: String?, errorCode: String? = nil, fileID: String, userID: String?, recordID: String? = nil,
        warnings: [String]? = nil, attempts: Int, createdAtMs: Int64, updatedAtMs: Int64, finishedAtMs: Int64?
    ) {
        self.recordID = recordID
        self.warnings = warnings
        self.errorCode = errorCode
        self.taskID = taskID
        self.status = status
        self.progress = progress
        self.model = model
        self.language = language
        self.durationMs = durationMs
        self.segments = segments
        self.error = error
        self.fileID = fileID
        self.userID = userID
        self.attempts = attempts
        self.createdAtMs = createdAtMs
        self.updatedAtMs = updatedAtMs
        self.finishedAtMs = finishedAtMs
    }

    enum CodingKeys: String, CodingKey {
        case taskID = "task_id"
        case status, progress, model, language
        case durationMs = "duration_ms"
        case segments, error
        case errorCode = "error_code"
        case fileID = "file_id"
        case userID = "user_id"
        case recordID = "record_id"
        case warnings, attempts
        case createdAtMs = "created_at_ms"
        case updatedAtMs = "updated_at_ms"
        case finishedAtMs = "finished_at_ms"
    }
}

/// `GET /open/partner/transcriptions`: a page of tasks, newest first (without segments).
public struct TranscriptionTaskList: Codable, Sendable, Hashable {
    public var tasks: [TranscriptionTask]
    /// Pass as `cursor` to get the next page; nil on the last page.
    public var nextCursor: String?

    public init(tasks: [TranscriptionTask], nextCursor: String?) {
        self.tasks = tasks
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case tasks
        case nextCursor = "next_cursor"
    }
}
