import EarshotAPI
import EarshotKit
import EarshotTestSupport
import Foundation
import Testing

/// The SDK's whole transcription flow against the real server and the real speech model: an app uploads with its
/// user token, the partner backend creates the task with its partner token, waits and exports SRT.
@Suite(.enabled(if: RealAudio.available, RealAudio.missingReason))
struct TranscriptionEndToEndTests {
    @Test func uploadCreateWaitAndExportJFK() async throws {
        try await KitPlatform.with { platform in
            let partner = try await platform.createPartner()

            // The app: FileUploader with a user token.
            let app = EarshotClient(
                baseURL: platform.base, token: try await platform.userToken("jfk-user", partner: partner))
            let uploader = FileUploader(
                client: app, configuration: .init(stateDirectory: platform.directory.appendingPathComponent("state")))
            let upload = try await uploader.upload(fileAt: RealAudio.jfk)

            // The partner backend: TranscriptionClient with a partner token, from the DownloadUrl the app reported.
            let tokens = PartnerTokenClientFactory.make(base: platform.base, partner: partner)
            let transcriptions = TranscriptionClient(
                client: EarshotClient(baseURL: platform.base, tokenProvider: tokens.provider))
            let created = try await transcriptions.create(
                TranscriptionTaskRequest(fileURL: upload.downloadURL, model: "asr-fast", userID: "jfk-user"),
                idempotencyKey: "jfk-recording")
            #expect(created.fileID == upload.fileID && created.userID == "jfk-user")
            // Repeating the create with the same key is answered with the same task.
            let repeated = try await transcriptions.create(
                TranscriptionTaskRequest(fileURL: upload.downloadURL, model: "asr-fast", userID: "jfk-user"),
                idempotencyKey: "jfk-recording")
            #expect(repeated.taskID == created.taskID)

            let done = try await transcriptions.wait(
                for: created.taskID,
                policy: PollPolicy(
                    initialInterval: .milliseconds(100), maximumInterval: .seconds(1), timeout: .seconds(240)))
            #expect(done.status == .success && done.progress == 100)
            let segments = try #require(done.segments)
            let text = segments.map(\.text).joined(separator: " ").lowercased()
            #expect(text.contains("ask not what your country"), "\(text)")
            #expect(segments.allSatisfy { $0.startMs < $0.endMs })
            #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.startMs < $1.startMs })

            let srt = String(decoding: try await transcriptions.export(created.taskID, as: .srt), as: UTF8.self)
            #expect(srt.hasPrefix("1\n00:00:"), "\(srt.prefix(80))")
            #expect(srt.lowercased().contains("ask not what your country"))

            let listed = try await transcriptions.list(status: .success, userID: "jfk-user")
            #expect(listed.tasks.map(\.taskID) == [created.taskID])
        }
    }
}

/// The real model and clip that `make setup` / `make models` put in `$EARSHOT_HOME` (default `~/.cache/earshot`).
enum RealAudio {
    /// The model behind `asr-fast` (`ModelTier.fast`).
    static var model: String { TestEnvironment.asrFastModel.path }
    static var jfk: URL { TestEnvironment.jfk }

    static var available: Bool { TestEnvironment.exist(TestEnvironment.asrFastModel, jfk) }

    static var missingReason: Comment {
        let missing = [model, jfk.path].filter { !FileManager.default.fileExists(atPath: $0) }
        let needs = missing.joined(separator: " and ")
        return Comment(rawValue: "needs \(needs): run `make setup` and `make models`")
    }
}
