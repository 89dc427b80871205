import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// Helpers for the transcription task tests: real audio from the setup cache, task creation and polling.
enum TestAudio {
    /// The setup cache (``TestEnvironment/home``).
    static var home: String { TestEnvironment.home.path }

    /// JFK's inaugural excerpt (11 s, 16 kHz mono WAV) from `$EARSHOT_HOME/testdata`.
    static func jfk() throws -> Data {
        try Data(contentsOf: TestEnvironment.jfk)
    }

    /// JFK's excerpt repeated `times` times as one WAV (for decodes long enough to revoke or kill midway).
    static func longJFK(times: Int) throws -> Data {
        TestWAV.repeating(try jfk(), times: times)
    }

    static var modelsInstalled: Bool { TestEnvironment.exist(TestEnvironment.asrFastModel) }
}

extension TestPlatform {
    /// Creates a transcription task and returns the response.
    func createTask(
        _ body: [String: Any], token: String, idempotencyKey: String? = nil
    ) async throws -> HTTPResult {
        try await send(
            "POST", APIPath.transcriptions, token: token, json: body,
            headers: idempotencyKey.map { ["Idempotency-Key": $0] } ?? [:])
    }

    func task(_ id: String, token: String) async throws -> TranscriptionTask {
        let response = try await send("GET", "/open/partner/transcriptions/\(id)", token: token)
        try #require(response.status == 200, "\(response.text)")
        return try response.decode(TranscriptionTask.self)
    }

    /// Polls the task until `done` holds (default: a final state) or `timeout` passes.
    func waitForTask(
        _ id: String, token: String, timeout: Duration = .seconds(180),
        until done: (TranscriptionTask) -> Bool = { $0.status.isFinal }
    ) async throws -> TranscriptionTask {
        let deadline = ContinuousClock.now + timeout
        while true {
            let current = try await task(id, token: token)
            if done(current) { return current }
            guard ContinuousClock.now < deadline else {
                Issue.record("task \(id) still \(current.status) after \(timeout)")
                return current
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

extension TestPlatform {
    /// POSTs `fields` (name, file name for a file part, value) as multipart/form-data to `path` (the
    /// OpenAI-compatible transcription endpoint by default); `contentType` overrides the request's Content-Type.
    func postForm(
        _ fields: [(String, String?, Data)], to path: String = APIPath.openAITranscriptions, token: String,
        contentType: String? = nil
    ) async throws -> HTTPResult {
        let boundary = "b-\(UUID().uuidString)"
        var body = Data()
        for (name, filename, value) in fields {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"".utf8)
            if let filename { body += Data("; filename=\"\(filename)\"".utf8) }
            body += Data("\r\n\r\n".utf8) + value + Data("\r\n".utf8)
        }
        body += Data("--\(boundary)--\r\n".utf8)
        return try await send(
            "POST", path, token: token, body: body,
            headers: ["Content-Type": contentType ?? "multipart/form-data; boundary=\(boundary)"])
    }

    /// `POST /v1/audio/transcriptions` with `file` named `filename` and the text `fields`.
    func openAITranscription(file: Data, filename: String, fields: [String: String], token: String) async throws
        -> HTTPResult
    {
        try await postForm(
            fields.sorted { $0.key < $1.key }.map { ($0.key, nil, Data($0.value.utf8)) } + [("file", filename, file)],
            token: token)
    }
}
