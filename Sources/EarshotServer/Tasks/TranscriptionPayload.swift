import EarshotAPI

/// What a transcription job carries in the queue (the job's `payload`, JSON): the validated request.
struct TranscriptionPayload: Codable, Sendable, Hashable {
    var fileID: String
    var model: String
    var language: String?
    var task: String
    var diarization: TranscriptionTaskRequest.Diarization?
    var callbackURL: String?
    var userID: String?

    enum CodingKeys: String, CodingKey {
        case fileID = "file_id"
        case model, language, task, diarization
        case callbackURL = "callback_url"
        case userID = "user_id"
    }
}
