/// `PUT /open/partner/transcriptions/{task_id}/speakers`: display names for a finished transcript's speakers.
///
/// Keys are the labels diarization gave (`Speaker 1`, or an enrolled voiceprint's name) or a name given earlier;
/// values are the new names (1–64 characters). Renaming a speaker to its own label removes the name. The names are
/// stored with the task and used by `GET` and every export.
public struct SpeakerRenameRequest: Codable, Sendable, Hashable {
    public var names: [String: String]

    public init(names: [String: String]) { self.names = names }
}

/// `POST /open/partner/voiceprints`: enrol a named speaker from an uploaded recording of their voice.
///
/// With a partner token `user_id` is required; with a user token it must be omitted or be the token's own user.
/// Enrolling a name again replaces its voiceprint.
public struct VoiceprintEnrolmentRequest: Codable, Sendable, Hashable {
    /// The speaker's name (by convention `Me` for the person wearing the recording device).
    public var name: String
    /// A `FileId` (or `DownloadUrl`) from `complete-upload`: 10–30 s of that person speaking is best, at least 3 s.
    public var fileID: String
    /// The partner's user the voiceprint belongs to.
    public var userID: String?

    public init(name: String, fileID: String, userID: String? = nil) {
        self.name = name
        self.fileID = fileID
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case name
        case fileID = "file_id"
        case userID = "user_id"
    }
}

/// An enrolled voiceprint (the vector itself never leaves the server).
public struct SpeakerVoiceprint: Codable, Sendable, Hashable {
    public var voiceprintID: String
    public var userID: String
    public var name: String
    /// Milliseconds of the speaker's speech it was made from.
    public var speechMs: Int
    /// The file it was enrolled from.
    public var fileID: String
    public var createdAtMs: Int64

    public init(voiceprintID: String, userID: String, name: String, speechMs: Int, fileID: String, createdAtMs: Int64) {
        self.voiceprintID = voiceprintID
        self.userID = userID
        self.name = name
        self.speechMs = speechMs
        self.fileID = fileID
        self.createdAtMs = createdAtMs
    }

    enum CodingKeys: String, CodingKey {
        case name
        case voiceprintID = "voiceprint_id"
        case userID = "user_id"
        case speechMs = "speech_ms"
        case fileID = "file_id"
        case createdAtMs = "created_at_ms"
    }
}

/// `GET /open/partner/voiceprints?user_id=`: a user's voiceprints (a partner token without `user_id`: all of the
/// partner's), oldest first.
public struct SpeakerVoiceprintList: Codable, Sendable, Hashable {
    public var voiceprints: [SpeakerVoiceprint]

    public init(voiceprints: [SpeakerVoiceprint]) { self.voiceprints = voiceprints }
}
