public import EarshotAPI
public import Foundation

/// Transcription tasks, for server-side Swift holding a partner token (an app never submits tasks: its backend
/// does, seed 001's "后端篇").
///
/// The request and response types are the server's own (`EarshotAPI`: ``TranscriptionTaskRequest``,
/// ``TranscriptionTask``, ``TranscriptionTaskList``, ``TaskStatus``, ``TranscriptSegment``) and the paths are
/// `APIPath`'s, so the SDK cannot drift from the contract.
///
/// ```swift
/// let tokens = PartnerTokenClient(baseURL: url, clientID: id, clientSecret: secret)
/// let transcriptions = TranscriptionClient(client: EarshotClient(baseURL: url, tokenProvider: tokens.provider))
/// let task = try await transcriptions.create(.init(fileURL: upload.downloadURL, model: "asr-pro"))
/// let done = try await transcriptions.wait(for: task.taskID)      // segments with speaker, start_ms, end_ms
/// let srt = try await transcriptions.export(task.taskID, as: .srt)
/// ```
public struct TranscriptionClient: Sendable {
    public let client: EarshotClient

    public init(client: EarshotClient) {
        self.client = client
    }

    /// Submits a task. The `Idempotency-Key` header makes the call safe to repeat: the server answers a repeat
    /// with the same task (and 409 `CONFLICT` if the key comes back with another body), so the SDK retries it on
    /// transient failures. Pass your own key (e.g. your recording's id) to make it safe across your retries too.
    public func create(
        _ request: TranscriptionTaskRequest, idempotencyKey: String = UUID().uuidString
    ) async throws -> TranscriptionTask {
        var call = try APIRequest.post(APIPath.transcriptions, json: request, idempotent: true)
        call.headers["Idempotency-Key"] = idempotencyKey
        return try await client.send(call)
    }

    /// The task's current state (and its transcript once `SUCCESS`).
    public func get(_ taskID: String) async throws -> TranscriptionTask {
        try await client.send(.get(client.path(APIPath.transcription, ["task_id": taskID])))
    }

    /// One page of the partner's tasks, newest first, without segments. Pass the answer's `nextCursor` as
    /// `cursor` for the next page; `status` and `userID` narrow the list.
    public func list(
        cursor: String? = nil, limit: Int? = nil, status: TaskStatus? = nil, userID: String? = nil
    ) async throws -> TranscriptionTaskList {
        var query: [URLQueryItem] = []
        if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let status { query.append(URLQueryItem(name: "status", value: status.rawValue)) }
        if let userID { query.append(URLQueryItem(name: "user_id", value: userID)) }
        var components = URLComponents()
        components.queryItems = query.isEmpty ? nil : query
        return try await client.send(
            .get(APIPath.transcriptions + (components.percentEncodedQuery.map { "?" + $0 } ?? "")))
    }

    /// Asks the server to stop the task; it ends `REVOKED` unless it already finished.
    @discardableResult
    public func revoke(_ taskID: String) async throws -> TranscriptionTask {
        let call = APIRequest(
            method: "POST", path: client.path(APIPath.revokeTranscription, ["task_id": taskID]), idempotent: true)
        return try await client.send(call)
    }

    /// Polls until the task finishes, pausing per `policy` between polls.
    ///
    /// - Returns: the task with its segments once `SUCCESS`.
    /// - Throws: ``EarshotError`` with ``EarshotError/Code/taskFailed`` (the task's error message) or
    ///   ``EarshotError/Code/taskRevoked``; ``EarshotError/Code/unavailable`` after `policy.timeout`;
    ///   `CancellationError` when the calling task is cancelled.
    public func wait(for taskID: String, policy: PollPolicy = PollPolicy()) async throws -> TranscriptionTask {
        try await policy.wait(
            for: "transcription \(taskID)", status: \.status, failure: \.error, revokedReason: \.error
        ) { try await get(taskID) }
    }

    /// The finished transcript as SRT, WebVTT, JSON or plain text.
    public func export(_ taskID: String, as format: TranscriptFormat) async throws -> Data {
        let path = client.path(APIPath.exportTranscription, ["task_id": taskID]) + "?format=\(format.rawValue)"
        return try await client.sendRaw(.get(path)).0
    }

    /// `GET /open/partner/webhooks/secret`: the partner's webhook signing secret (`whsec_…`, created on first use),
    /// for ``WebhookVerifier``. Fetch it once at startup; it does not change.
    public func webhookSecret() async throws -> String {
        let answer: WebhookSecret = try await client.send(.get(APIPath.webhookSecret))
        return answer.secret
    }

    /// `GET …/webhook/deliveries`: the task's webhook deliveries with every attempt (time, status, error).
    public func webhookDeliveries(_ taskID: String) async throws -> [WebhookDelivery] {
        let list: WebhookDeliveryList = try await client.send(
            .get(client.path(APIPath.webhookDeliveries, ["task_id": taskID])))
        return list.deliveries
    }

    /// The OpenAI-compatible call (`POST /v1/audio/transcriptions`, `response_format=verbose_json`): uploads the
    /// file as multipart form data and waits for the transcript. The body is streamed from a temporary file, so
    /// the audio is never held in memory.
    public func transcribe(
        fileAt fileURL: URL, model: String = "asr-fast", language: String? = nil, prompt: String? = nil
    ) async throws -> OpenAITranscription {
        let data = try await openAI(
            fileAt: fileURL, model: model, language: language, prompt: prompt, format: "verbose_json")
        do {
            return try JSONDecoder().decode(OpenAITranscription.self, from: data)
        } catch {
            throw EarshotError(.invalidResponse, "cannot decode the transcription answer", underlying: error)
        }
    }

    /// The OpenAI-compatible call with a text `response_format` (`text`, `srt` or `vtt`); returns the body.
    public func transcribeText(
        fileAt fileURL: URL, format: TranscriptFormat = .text, model: String = "asr-fast", language: String? = nil
    ) async throws -> String {
        let name = format == .text ? "text" : format.rawValue
        let data = try await openAI(fileAt: fileURL, model: model, language: language, prompt: nil, format: name)
        return String(decoding: data, as: UTF8.self)
    }

    private func openAI(
        fileAt fileURL: URL, model: String, language: String?, prompt: String?, format: String
    ) async throws -> Data {
        var fields = [("model", model), ("response_format", format)]
        if let language { fields.append(("language", language)) }
        if let prompt { fields.append(("prompt", prompt)) }
        let form = try MultipartForm.write(fields: fields, file: fileURL, fieldName: "file")
        defer { try? FileManager.default.removeItem(at: form.url) }
        var call = APIRequest(
            method: "POST", path: APIPath.openAITranscriptions, contentType: form.contentType, idempotent: false)
        call.bodyFile = form.url
        return try await client.sendRaw(call).0
    }
}
