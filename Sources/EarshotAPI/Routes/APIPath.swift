/// The platform API's paths (relative to the server's base URL and optional prefix such as `/developer/api`).
///
/// `{name}` marks a path parameter. Server, SDK and CLI use these constants so a path is spelled once.
public enum APIPath {
    /// `POST`: client credentials → partner token.
    public static let partnerToken = "/open/partner/token"
    /// `POST` (partner token): `user_id` → user token.
    public static let userToken = "/open/partner/user-token"
    /// `POST` (partner or user token): `{filesize, filetype}` → upload plan.
    public static let generatePresignedURLs = "/open/partner/files/upload/generate-presigned-urls"
    /// `POST` (partner or user token): assemble the parts.
    public static let completeUpload = "/open/partner/files/upload/complete-upload"
    /// `PUT` (signed URL): one part's bytes.
    public static let uploadPart = "/open/partner/files/upload/parts/{upload_id}/{part_number}"
    /// `GET` (partner or user token): parts received so far, fresh URLs for the rest.
    public static let uploadParts = "/open/partner/files/upload/{upload_id}/parts"
    /// `DELETE` (partner or user token): abort an upload and discard its parts.
    public static let upload = "/open/partner/files/upload/{upload_id}"
    /// `GET` (partner or user token): a file's metadata and a fresh download URL.
    public static let file = "/open/partner/files/{file_id}"
    /// `GET` (signed URL): the file's bytes, with `Range`.
    public static let fileDownload = "/open/partner/files/{file_id}/download"
    /// `POST` (partner token): create a transcription task; `GET`: list tasks (`?cursor=&limit=&status=&user_id=`).
    public static let transcriptions = "/open/partner/transcriptions"
    /// `GET` (partner token): a task with its segments once finished.
    public static let transcription = "/open/partner/transcriptions/{task_id}"
    /// `POST` (partner token): stop a queued or running task (state `REVOKED`).
    public static let revokeTranscription = "/open/partner/transcriptions/{task_id}/revoke"
    /// `GET` (partner token): a finished transcript as `?format=srt|vtt|txt|json`.
    public static let exportTranscription = "/open/partner/transcriptions/{task_id}/export"
    /// `PUT` (partner token): rename the speakers of a finished transcript (`{"names": {"Speaker 1": "Alice"}}`).
    public static let transcriptionSpeakers = "/open/partner/transcriptions/{task_id}/speakers"
    /// `POST` (partner token with `user_id`, or a user token): enrol a voiceprint from an uploaded file; `GET`: list.
    public static let voiceprints = "/open/partner/voiceprints"
    /// `DELETE` (partner token, or the owning user's token): delete a voiceprint.
    public static let voiceprint = "/open/partner/voiceprints/{voiceprint_id}"
    /// `GET` (partner token): the task's webhook deliveries with every attempt.
    public static let webhookDeliveries = "/open/partner/transcriptions/{task_id}/webhook/deliveries"
    /// `POST` (partner token): deliver the task's final-state webhook again.
    public static let webhookRedeliver = "/open/partner/transcriptions/{task_id}/webhook/redeliver"
    /// `GET` (partner token): the secret that signs this partner's webhooks; `POST` …`/rotate` replaces it.
    public static let webhookSecret = "/open/partner/webhooks/secret"
    /// `POST` (partner token): create a long-lived API key (shown once); `GET`: the partner's keys.
    public static let apiKeys = "/open/partner/api-keys"
    /// `DELETE` (partner token): revoke an API key at once.
    public static let apiKey = "/open/partner/api-keys/{key_id}"
    /// `POST` (partner token as Bearer): OpenAI-compatible synchronous transcription (multipart/form-data).
    public static let openAITranscriptions = "/v1/audio/transcriptions"
    /// `POST` (partner token as Bearer): OpenAI-compatible synchronous translation to English.
    public static let openAITranslations = "/v1/audio/translations"
    /// `POST` (partner token as Bearer): OpenAI-compatible speech synthesis (JSON in, audio out).
    public static let openAISpeech = "/v1/audio/speech"
    /// `GET` upgraded to WebSocket (partner or user token as Bearer, or the `openai-insecure-api-key.` subprotocol):
    /// OpenAI-Realtime-compatible live transcription (`?intent=transcription`).
    public static let realtime = "/v1/realtime"
    /// `POST` (partner token, or user token with `records:write`): a client secret for a browser or app, with the
    /// transcription session's settings (OpenAI's beta shape; answers the session with `client_secret`).
    public static let realtimeTranscriptionSessions = "/v1/realtime/transcription_sessions"
    /// `POST` (partner token, or user token with `records:write`): a client secret (OpenAI's GA shape:
    /// `{value, expires_at, session}`).
    public static let realtimeClientSecrets = "/v1/realtime/client_secrets"
    /// `GET` (partner token as Bearer): the speech tiers and their aliases, in OpenAI's model-list shape.
    public static let openAIModels = "/v1/models"
    /// `GET` (partner token as Bearer): one model of ``openAIModels``.
    public static let openAIModel = "/v1/models/{model}"
    /// `GET`: the OpenAPI 3.1 document.
    public static let openAPI = "/openapi.json"
}
