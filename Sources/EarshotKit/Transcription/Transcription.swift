public import EarshotAPI

/// The state of a transcription task, as the platform reports it (the seeds' Celery-style states).
public struct TranscriptionStatus: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    public static let pending = TranscriptionStatus(rawValue: "PENDING")
    public static let received = TranscriptionStatus(rawValue: "RECEIVED")
    public static let started = TranscriptionStatus(rawValue: "STARTED")
    public static let progress = TranscriptionStatus(rawValue: "PROGRESS")
    public static let success = TranscriptionStatus(rawValue: "SUCCESS")
    public static let failure = TranscriptionStatus(rawValue: "FAILURE")
    public static let revoked = TranscriptionStatus(rawValue: "REVOKED")

    /// True for `SUCCESS`, `FAILURE` and `REVOKED`: the task will not change any more.
    public var isFinished: Bool { self == .success || self == .failure || self == .revoked }
}

/// One stretch of speech: who spoke, when (milliseconds from the start) and what was said.
public struct TranscriptSegment: Codable, Sendable, Hashable {
    /// A speaker label (`发言人 1`, `Speaker 2`…) when diarization ran, else nil.
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
        case speaker
        case startMs = "start_ms"
        case endMs = "end_ms"
        case text
    }
}

/// A transcription task and, once it succeeded, its transcript.
public struct Transcription: Codable, Sendable, Hashable {
    public var taskID: String
    public var status: TranscriptionStatus
    /// `asr-fast` or `asr-pro`.
    public var model: String?
    public var fileID: String?
    /// Percent done while `PROGRESS`, when the server reports it.
    public var progress: Int?
    /// The detected or requested language (`en`, `zh`…).
    public var language: String?
    /// The transcript, once `SUCCESS`.
    public var segments: [TranscriptSegment]?
    /// Why the task failed, once `FAILURE`.
    public var error: ErrorResponse.Body?
    public var createdAtMs: Int64?

    public init(
        taskID: String, status: TranscriptionStatus, model: String? = nil, fileID: String? = nil,
        progress: Int? = nil, language: String? = nil, segments: [TranscriptSegment]? = nil,
        error: ErrorResponse.Body? = nil, createdAtMs: Int64? = nil
    ) {
        self.taskID = taskID
        self.status = status
        self.model = model
        self.fileID = fileID
        self.progress = progress
        self.language = language
        self.segments = segments
        self.error = error
        self.createdAtMs = createdAtMs
    }

    enum CodingKeys: String, CodingKey {
        case taskID = "task_id"
        case status, model
        case fileID = "file_id"
        case progress, language, segments, error
        case createdAtMs = "created_at_ms"
    }
}

/// What to transcribe and how (`POST /open/partner/transcriptions`). Give ``fileID`` (an upload's `FileId`) or
/// ``fileURL`` (its `DownloadUrl`).
public struct TranscriptionRequest: Codable, Sendable, Hashable {
    public var fileID: String?
    public var fileURL: String?
    /// `asr-fast` (low latency, the default) or `asr-pro` (high accuracy).
    public var model: String
    /// A language code to skip detection (`en`, `zh`…).
    public var language: String?
    /// Label speakers (diarization).
    public var diarize: Bool?
    /// Where the platform POSTs a signed notification when the task finishes.
    public var webhookURL: String?

    public init(
        fileID: String? = nil, fileURL: String? = nil, model: String = "asr-fast", language: String? = nil,
        diarize: Bool? = nil, webhookURL: String? = nil
    ) {
        self.fileID = fileID
        self.fileURL = fileURL
        self.model = model
        self.language = language
        self.diarize = diarize
        self.webhookURL = webhookURL
    }

    enum CodingKeys: String, CodingKey {
        case fileID = "file_id"
        case fileURL = "file_url"
        case model, language, diarize
        case webhookURL = "webhook_url"
    }
}

/// Transcript export formats.
public struct TranscriptFormat: RawRepresentable, Hashable, Sendable {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let srt = TranscriptFormat(rawValue: "srt")
    public static let vtt = TranscriptFormat(rawValue: "vtt")
    public static let json = TranscriptFormat(rawValue: "json")
    public static let text = TranscriptFormat(rawValue: "txt")
}

/// The answer of the OpenAI-compatible `POST /v1/audio/transcriptions` with `response_format=verbose_json`.
public struct OpenAITranscription: Codable, Sendable, Hashable {
    /// One segment (times in seconds, as OpenAI's API has them).
    public struct Segment: Codable, Sendable, Hashable {
        public var id: Int
        public var start: Double
        public var end: Double
        public var text: String
    }

    public var text: String
    public var language: String?
    /// Seconds of audio.
    public var duration: Double?
    public var segments: [Segment]?
}
