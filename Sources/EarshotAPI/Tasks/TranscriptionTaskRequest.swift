/// `POST /open/partner/transcriptions` (partner token): transcribe an uploaded file.
///
/// Send an `Idempotency-Key` header to make retries safe: the same key with the same body returns the same task;
/// the same key with another body is 409 `CONFLICT`.
public struct TranscriptionTaskRequest: Codable, Sendable, Hashable {
    /// Speaker labelling.
    public struct Diarization: Codable, Sendable, Hashable {
        public var enabled: Bool
        /// Expected number of speakers, if known (1…32).
        public var speakers: Int?
        /// Fewest speakers to find (1…32), when the exact number is not known.
        public var minSpeakers: Int?
        /// Most speakers to find (1…32).
        public var maxSpeakers: Int?
        /// How speakers are labelled: `{n}` is replaced by the speaker's number in order of first appearance
        /// (`"发言人 {n}"`, as in seed 001's transcripts); default `"Speaker {n}"`.
        public var labelTemplate: String?

        public init(
            enabled: Bool, speakers: Int? = nil, minSpeakers: Int? = nil, maxSpeakers: Int? = nil,
            labelTemplate: String? = nil
        ) {
            self.enabled = enabled
            self.speakers = speakers
            self.minSpeakers = minSpeakers
            self.maxSpeakers = maxSpeakers
            self.labelTemplate = labelTemplate
        }

        enum CodingKeys: String, CodingKey {
            case enabled, speakers
            case minSpeakers = "min_speakers"
            case maxSpeakers = "max_speakers"
            case labelTemplate = "label_template"
        }
    }

    /// A `DownloadUrl` or `FileId` returned by `complete-upload`. Other URLs are refused: the server never fetches
    /// arbitrary URLs.
    public var fileURL: String
    /// `asr-fast` (low latency) or `asr-pro` (higher accuracy).
    public var model: String
    /// Spoken language (ISO code such as `en`, `zh`); omit to detect it.
    public var language: String?
    /// `transcribe` (default) or `translate` (to English).
    public var task: String?
    public var diarization: Diarization?
    /// Where to POST the signed webhook when the task reaches a final state (http or https).
    public var callbackURL: String?
    /// The partner's user the recording belongs to (for listing and the webhook).
    public var userID: String?

    public init(
        fileURL: String, model: String, language: String? = nil, task: String? = nil,
        diarization: Diarization? = nil, callbackURL: String? = nil, userID: String? = nil
    ) {
        self.fileURL = fileURL
        self.model = model
        self.language = language
        self.task = task
        self.diarization = diarization
        self.callbackURL = callbackURL
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case fileURL = "file_url"
        case model, language, task, diarization
        case callbackURL = "callback_url"
        case userID = "user_id"
    }
}
