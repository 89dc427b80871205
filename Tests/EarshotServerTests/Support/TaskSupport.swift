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
