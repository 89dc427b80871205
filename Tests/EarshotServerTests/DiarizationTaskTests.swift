import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Transcription tasks with diarization against a real server: speakers in segments and every export, speaker
/// renames (persisted, tenant-isolated, validated).
@Suite(
    .enabled(if: TestAudio.modelsInstalled && DiarizationFixtures.available, DiarizationFixtures.missing),
    .timeLimit(.minutes(30)))
struct DiarizationTaskTests {
    @Test func thePyannoteCallComesBackWithTwoSpeakersThatRenamesFollowIntoEveryExport() async throws {
        try await TestPlatform.with { platform in
            let (_, token, userToken) = try await platform.newUser()
            let file = try await platform.upload(try DiarizationFixtures.pyannoteCall(), token: token)
            let diarized = try await platform.createTask(
                [
                    "file_url": file.downloadURL, "model": "asr-fast", "language": "en",
                    "diarization": ["enabled": true],
                ],
                token: token
            ).decode(TranscriptionTask.self)
            let plain = try await platform.createTask(
                ["file_url": file.fileID, "model": "asr-fast", "language": "en"], token: token
            ).decode(TranscriptionTask.self)

            // Not finished yet: renaming is refused with the state.
            let early = try await platform.rename(diarized.taskID, ["Speaker 1": "Alice"], token: token)
            #expect(early.status == 409 && early.errorMessage.contains("SUCCESS"), "\(early.text)")

            let done = try await platform.waitForTask(diarized.taskID, token: token)
            try #require(done.status == .success, "\(done.error ?? "")")
            let segments = try #require(done.segments)
            let speakers = Set(segments.compactMap(\.speaker))
            #expect(speakers.count >= 2 && speakers.contains("Speaker 2"), "\(segments)")
            #expect(segments.allSatisfy { $0.speaker != nil })
            #expect(segments.first?.speaker == "Speaker 1")

            let srt = try await platform.export(diarized.taskID, "srt", token: token)
            let vtt = try await platform.export(diarized.taskID, "vtt", token: token)
            let json = try await platform.export(diarized.taskID, "json", token: token)
            for label in speakers {
                #expect(srt.contains("[\(label)]"))
                #expect(vtt.contains("<v \(label)>"))
            }
            #expect(try DiarizationFixtures.speakers(inJSON: json) == speakers)

            // Rename; the new names show in GET and every export, and survive as long as the task.
            let renamed = try await platform.rename(diarized.taskID, ["Speaker 1": "Alice"], token: token)
            #expect(renamed.status == 200, "\(renamed.text)")
            let after = try await platform.task(diarized.taskID, token: token)
            #expect(
                Set(after.segments?.compactMap(\.speaker) ?? []) == speakers.subtracting(["Speaker 1"]).union(["Alice"])
            )
            let srtAfter = try await platform.export(diarized.taskID, "srt", token: token)
            #expect(srtAfter.contains("[Alice]") && !srtAfter.contains("[Speaker 1]"))
            #expect(try await platform.export(diarized.taskID, "vtt", token: token).contains("<v Alice>"))
            let jsonAfter = try await platform.export(diarized.taskID, "json", token: token)
            #expect(
                try DiarizationFixtures.speakers(inJSON: jsonAfter)
                    == speakers.subtracting(["Speaker 1"]).union(["Alice"]))
            // A name given earlier works as the key too; renaming back to the label removes the name.
            #expect(try await platform.rename(diarized.taskID, ["Alice": "Bob"], token: token).status == 200)
            #expect(try await platform.export(diarized.taskID, "txt", token: token).contains("[Bob]"))
            #expect(try await platform.rename(diarized.taskID, ["Bob": "Speaker 1"], token: token).status == 200)
            #expect(try await platform.export(diarized.taskID, "srt", token: token).contains("[Speaker 1]"))

            // Bad inputs, each with a message that says what is wrong.
            let unknown = try await platform.rename(diarized.taskID, ["Speaker 9": "Carol"], token: token)
            #expect(unknown.status == 400 && unknown.errorMessage.contains("Speaker 2"), "\(unknown.text)")
            let empty = try await platform.rename(diarized.taskID, ["Speaker 1": "  "], token: token)
            #expect(empty.status == 400 && empty.errorMessage.contains("empty"), "\(empty.text)")
            let clash = try await platform.rename(diarized.taskID, ["Speaker 1": "Speaker 2"], token: token)
            #expect(clash.status == 400 && clash.errorMessage.contains("both"), "\(clash.text)")
            let none = try await platform.rename(diarized.taskID, [:], token: token)
            #expect(none.status == 400, "\(none.text)")
            let malformed = try await platform.send(
                "PUT", "/open/partner/transcriptions/\(diarized.taskID)/speakers", token: token,
                body: Data("{\"names\": [".utf8), headers: ["Content-Type": "application/json"])
            #expect(malformed.status == 400)
            let byUser = try await platform.rename(diarized.taskID, ["Speaker 1": "Eve"], token: userToken)
            #expect(byUser.status == 403)

            // Another tenant cannot see or rename it.
            let otherToken = try await platform.partnerToken(try await platform.createPartner("Other"))
            let foreign = try await platform.rename(diarized.taskID, ["Speaker 1": "Mallory"], token: otherToken)
            #expect(foreign.status == 404)
            #expect(try await platform.export(diarized.taskID, "srt", token: token).contains("[Speaker 1]"))

            // A task without diarization has no speakers to rename.
            let plainDone = try await platform.waitForTask(plain.taskID, token: token)
            #expect(plainDone.status == .success)
            #expect(plainDone.segments?.allSatisfy { $0.speaker == nil } == true)
            let noSpeakers = try await platform.rename(plain.taskID, ["Speaker 1": "Alice"], token: token)
            #expect(noSpeakers.status == 400 && noSpeakers.errorMessage.contains("diarization"), "\(noSpeakers.text)")
        }
    }

    @Test func diarizationOptionsAreValidatedAtCreation() async throws {
        try await TestPlatform.with { platform in
            let (_, token, _) = try await platform.newUser()
            let file = try await platform.upload(try TestAudio.jfk(), token: token)
            let cases: [([String: Any], String)] = [
                (["enabled": true, "speakers": 0], "speakers"),
                (["enabled": true, "min_speakers": 3, "max_speakers": 2], "min_speakers"),
                (["enabled": true, "speakers": 5, "max_speakers": 2], "speakers"),
                (["enabled": true, "max_speakers": 40], "max_speakers"),
            ]
            for (diarization, field) in cases {
                let response = try await platform.createTask(
                    ["file_url": file.fileID, "model": "asr-fast", "diarization": diarization], token: token)
                #expect(response.status == 400 && response.errorMessage.contains(field), "\(response.text)")
            }
        }
    }

    @Test func aRecordTranscribedWithDiarizationShowsItsSpeakersAndTheirNames() async throws {
        try await TestPlatform.with { platform in
            let (_, _, user) = try await platform.newUser()
            let id = try await platform.createRecord(
                token: user, audio: try DiarizationFixtures.pyannoteCall(), ["title": "Call"]
            ).record.recordID
            // diarization belongs to task_type 0 only.
            let refused = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, id), token: user,
                json: ["task_type": 1, "diarization": ["enabled": true]])
            #expect(refused.status == 400 && refused.text.contains("task_type 0"), "\(refused.text)")
            let task = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, id), token: user,
                json: ["task_type": 0, "diarization": ["enabled": true, "max_speakers": 3]]
            ).decode(RecordTask.self)
            let done = try await platform.waitForRecordTask(id, task.taskID, token: user)
            try #require(done.status == .success, "\(done.error ?? "")")
            let detail = try await platform.send("GET", platform.recordPath(APIPath.record, id), token: user)
                .decode(RecordDetail.self)
            let sentences = try #require(detail.transcript?.sentences)
            let speakers = Set(sentences.compactMap(\.speaker))
            #expect(speakers.count >= 2 && speakers.contains("Speaker 1"), "\(sentences)")

            // Names given on the record replace the labels in the detail and the Markdown note.
            let patched = try await platform.send(
                "PATCH", platform.recordPath(APIPath.record, id), token: user,
                json: ["speaker_names": ["Speaker 1": "Alice"]])
            #expect(patched.status == 200, "\(patched.text)")
            let note = try await platform.send(
                "GET", platform.recordPath(APIPath.recordExport, id) + "?format=md", token: user)
            #expect(note.text.contains("Alice"))
            #expect(!note.text.contains("Speaker 1:") && !note.text.contains("**Speaker 1**"))
        }
    }
}

/// Fixtures of the diarization server tests.
enum DiarizationFixtures {
    static var pyannotePath: String { TestAudio.home + "/testdata/pyannote/sample.wav" }
    static var weightsPath: String { TestAudio.home + "/models/resemblyzer-0.1.4.eswt" }

    static var available: Bool {
        FileManager.default.fileExists(atPath: pyannotePath) && FileManager.default.fileExists(atPath: weightsPath)
            && SpeechSynthesis.available
    }
    static let missing: Comment = "needs testdata/pyannote, the Resemblyzer weights (make setup) and espeak-ng"

    /// The distinct speakers of a JSON export.
    static func speakers(inJSON text: String) throws -> Set<String> {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let segments = try #require(object?["segments"] as? [[String: Any]])
        return Set(segments.compactMap { $0["speaker"] as? String })
    }

    /// The pyannote sample: a 30 s phone call between two people.
    static func pyannoteCall() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: pyannotePath)) }
}

extension TestPlatform {
    /// `PUT …/speakers` with `names`.
    func rename(_ taskID: String, _ names: [String: String], token: String) async throws -> HTTPResult {
        try await send(
            "PUT", "/open/partner/transcriptions/\(taskID)/speakers", token: token, json: ["names": names])
    }

    /// A finished task's export as text.
    func export(_ taskID: String, _ format: String, token: String) async throws -> String {
        let response = try await send(
            "GET", "/open/partner/transcriptions/\(taskID)/export?format=\(format)", token: token)
        try #require(response.status == 200, "\(response.text)")
        return response.text
    }
}
