import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// Helpers for the transcription task tests: real audio from the setup cache, task creation and polling.
enum TestAudio {
    static var home: String {
        ProcessInfo.processInfo.environment["EARSHOT_HOME"] ?? (NSHomeDirectory() + "/.cache/earshot")
    }

    /// JFK's inaugural excerpt (11 s, 16 kHz mono WAV) from `$EARSHOT_HOME/testdata`.
    static func jfk() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: home + "/testdata/jfk.wav"))
    }

    /// JFK's excerpt repeated `times` times as one WAV (for decodes long enough to revoke or kill midway).
    static func longJFK(times: Int) throws -> Data {
        let wav = try jfk()
        // Find the "data" chunk.
        var offset = 12
        var pcm = Data()
        var format = Data()
        while offset + 8 <= wav.count {
            let id = String(decoding: wav[offset..<offset + 4], as: UTF8.self)
            let size =
                Int(wav[offset + 4]) | Int(wav[offset + 5]) << 8 | Int(wav[offset + 6]) << 16
                | Int(wav[offset + 7]) << 24
            let body = wav[(offset + 8)..<min(offset + 8 + size, wav.count)]
            if id == "fmt " { format = Data(body) }
            if id == "data" { pcm = Data(body) }
            offset += 8 + size + (size & 1)
        }
        var repeated = Data()
        for _ in 0..<times { repeated.append(pcm) }
        func le32(_ value: Int) -> Data { withUnsafeBytes(of: UInt32(value).littleEndian) { Data($0) } }
        var out = Data("RIFF".utf8) + le32(4 + 8 + format.count + 8 + repeated.count) + Data("WAVE".utf8)
        out += Data("fmt ".utf8) + le32(format.count) + format
        out += Data("data".utf8) + le32(repeated.count) + repeated
        return out
    }

    static var modelsInstalled: Bool {
        FileManager.default.fileExists(atPath: home + "/models/ggml-base-q8_0.bin")
    }
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
