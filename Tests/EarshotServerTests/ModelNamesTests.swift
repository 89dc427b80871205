import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// The model names clients bring (`whisper-1`, the seed's `ikho-asr-fast`/`ikho-asr-pro`) wherever the API takes a
/// model: accepted as their tier, echoed as sent, and listed when a name is refused.
@Suite(.enabled(if: TestAudio.modelsInstalled, "speech models not installed (run `make models`)"))
struct ModelNamesTests {
    static let aliasList = "whisper-1 (= asr-fast), ikho-asr-fast (= asr-fast), ikho-asr-pro (= asr-pro)"

    @Test func aTaskCreatedWithTheSeedsNameRunsAndEchoesIt() async throws {
        try await TestPlatform.with { platform in
            let (_, token, _) = try await platform.newUser()
            let file = try await platform.upload(try TestAudio.jfk(), token: token)
            let created = try await platform.createTask(
                ["file_url": file.downloadURL, "model": "ikho-asr-pro"], token: token)
            #expect(created.status == 201, "\(created.text)")
            let task = try created.decode(TranscriptionTask.self)
            #expect(task.model == "ikho-asr-pro")
            let done = try await platform.waitForTask(task.taskID, token: token)
            #expect(done.status == .success, "\(done.error ?? "")")
            #expect(done.model == "ikho-asr-pro")
            let text = (done.segments ?? []).map(\.text).joined(separator: " ").lowercased()
            #expect(text.contains("ask not what your country can do for you"))

            for name in ["whisper-1", "ikho-asr-fast", "asr-fast", "asr-pro"] {
                let accepted = try await platform.createTask(["file_url": file.fileID, "model": name], token: token)
                #expect(accepted.status == 201, "\(name): \(accepted.text)")
                let id = try accepted.decode(TranscriptionTask.self).taskID
                _ = try await platform.send("POST", "/open/partner/transcriptions/\(id)/revoke", token: token)
            }
            let refused = try await platform.createTask(
                ["file_url": file.fileID, "model": "ikho-asr-max"], token: token)
            #expect(refused.status == 400)
            #expect(refused.errorMessage.contains("model \"ikho-asr-max\" is not offered"))
            #expect(refused.errorMessage.contains(Self.aliasList))
        }
    }

    @Test func recordTasksTakeTheAliasesToo() async throws {
        try await TestPlatform.with { platform in
            let (_, _, user) = try await platform.newUser()
            let id = try await platform.createRecord(token: user).record.recordID
            let created = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, id), token: user,
                json: ["task_type": 0, "model": "ikho-asr-fast"])
            #expect(created.status == 201, "\(created.text)")
            let task = try created.decode(RecordTask.self)
            #expect(task.model == "ikho-asr-fast")
            let done = try await platform.waitForRecordTask(id, task.taskID, token: user)
            #expect(done.status == .success, "\(done.error ?? "")")
            let refused = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, id), token: user,
                json: ["task_type": 0, "model": "whisper-2"])
            #expect(refused.status == 400)
            #expect(refused.errorMessage.contains("model \"whisper-2\" is not offered"))
            #expect(refused.errorMessage.contains(Self.aliasList))
        }
    }

    @Test func theOpenAIEndpointTakesWhisper1AndTheSeedsNames() async throws {
        try await TestPlatform.with { platform in
            let (_, token, _) = try await platform.newUser()
            // The name is checked before the file is decoded: an accepted name gets to the decoder's complaint.
            for name in ["whisper-1", "ikho-asr-fast", "ikho-asr-pro", "asr-fast", "asr-pro"] {
                let response = try await platform.transcribe(testContent(500), model: name, token: token)
                #expect(response.status == 400)
                #expect(response.errorMessage.contains("could not be decoded"), "\(name): \(response.text)")
            }
            let refused = try await platform.transcribe(try TestAudio.jfk(), model: "gpt-4o-transcribe", token: token)
            #expect(refused.status == 400)
            #expect(refused.errorMessage.contains("model \"gpt-4o-transcribe\" is not offered"))
            #expect(refused.errorMessage.contains(Self.aliasList))
            // And a seed name transcribes like its tier.
            let response = try await platform.transcribe(try TestAudio.jfk(), model: "ikho-asr-fast", token: token)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.text.lowercased().contains("country"))
        }
    }
}
