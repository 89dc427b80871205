public import Foundation

/// Transcription tasks, for server-side Swift holding a partner token (an app never submits tasks: its backend
/// does, seed 001's "后端篇").
///
/// ```swift
/// let tokens = PartnerTokenClient(baseURL: url, clientID: id, clientSecret: secret)
/// let transcriptions = TranscriptionClient(client: EarshotClient(baseURL: url, tokenProvider: tokens.provider))
/// let task = try await transcriptions.create(.init(fileID: upload.fileID, model: "asr-pro"))
/// let done = try await transcriptions.wait(for: task.taskID)      // segments with speaker, start_ms, end_ms
/// let srt = try await transcriptions.export(task.taskID, as: .srt)
/// ```
///
/// - Note: the server's task API is being built; the paths here (`/open/partner/transcriptions…`,
///   `/v1/audio/transcriptions`) follow the issue and are tested against a stub until it lands.
public struct TranscriptionClient: Sendable {
    /// Paths of the task API (spelled once here until they move into `EarshotAPI.APIPath`).
    enum Path {
        static let transcriptions = "/open/partner/transcriptions"
        static let transcription = "/open/partner/transcriptions/{task_id}"
        static let revoke = "/open/partner/transcriptions/{task_id}/revoke"
        static let export = "/open/partner/transcriptions/{task_id}/export"
        static let openAI = "/v1/audio/transcriptions"
    }

    public let client: EarshotClient

    public init(client: EarshotClient) {
        self.client = client
    }

    /// Submits a task. The `Idempotency-Key` header makes the call safe to repeat: the server answers a repeat
    /// with the same task (and 409 `CONFLICT` if the key comes back with another body), so the SDK retries it on
    /// transient failures. Pass your own key (e.g. your recording's id) to make it safe across your retries too.
    public func create(
        _ request: TranscriptionRequest, idempotencyKey: String = UUID().uuidString
    ) async throws -> Transcription {
        var call = try APIRequest.post(Path.transcriptions, json: request, idempotent: true)
        call.headers["Idempotency-Key"] = idempotencyKey
        return try await client.send(call)
    }

    /// The task's current state (and its transcript once `SUCCESS`).
    public func get(_ taskID: String) async throws -> Transcription {
        try await client.send(.get(client.path(Path.transcription, ["task_id": taskID])))
    }

    /// Asks the server to stop the task; it ends `REVOKED` unless it already finished.
    @discardableResult
    public func revoke(_ taskID: String) async throws -> Transcription {
        let call = APIRequest(method: "POST", path: client.path(Path.revoke, ["task_id": taskID]), idempotent: true)
        return try await client.send(call)
    }

    /// Polls until the task finishes, pausing per `policy` between polls.
    ///
    /// - Returns: the task with its segments once `SUCCESS`.
    /// - Throws: ``EarshotError`` with ``EarshotError/Code/taskFailed`` (the task's error message) or
    ///   ``EarshotError/Code/taskRevoked``; ``EarshotError/Code/unavailable`` after `policy.timeout`;
    ///   `CancellationError` when the calling task is cancelled.
    public func wait(for taskID: String, policy: PollPolicy = PollPolicy()) async throws -> Transcription {
        let clock = ContinuousClock()
        let start = clock.now
        var poll = 1
        while true {
            let task = try await get(taskID)
            switch task.status {
            case .success:
                return task
            case .failure:
                throw EarshotError(
                    .taskFailed, "transcription \(taskID) failed: \(task.error?.message ?? "no reason given")",
                    requestID: task.error?.requestID, wireCode: task.error?.code.rawValue)
            case .revoked:
                throw EarshotError(.taskRevoked, "transcription \(taskID) was revoked")
            default:
                let pause = policy.interval(afterPoll: poll)
                if let timeout = policy.timeout, clock.now - start + pause > timeout {
                    throw EarshotError(
                        .unavailable, "transcription \(taskID) is still \(task.status) after \(timeout)")
                }
                try await Task.sleep(for: pause)
                poll += 1
            }
        }
    }

    /// The finished transcript as SRT, WebVTT, JSON or plain text.
    public func export(_ taskID: String, as format: TranscriptFormat) async throws -> Data {
        let path = client.path(Path.export, ["task_id": taskID]) + "?format=\(format.rawValue)"
        return try await client.sendRaw(.get(path)).0
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
        var call = APIRequest(method: "POST", path: Path.openAI, contentType: form.contentType, idempotent: false)
        call.bodyFile = form.url
        return try await client.sendRaw(call).0
    }
}
