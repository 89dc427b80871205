import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Voiceprints against a real server: enrolment from an uploaded file (user token or partner token naming the user),
/// a later diarized recording of that user naming the enrolled speaker (and not an absent one), listing, deleting,
/// tenant and user isolation, bad inputs.
@Suite(
    .enabled(if: TestAudio.modelsInstalled && DiarizationFixtures.available, DiarizationFixtures.missing),
    .timeLimit(.minutes(30)))
struct VoiceprintTests {
    let me = SpeechSynthesis.voices[0]
    let other = SpeechSynthesis.voices[1]
    let absent = SpeechSynthesis.voices[2]

    func sample(_ voice: String) throws -> Data {
        try SpeechSynthesis.dialogue(SpeechSynthesis.enrolmentLines.map { (voice, $0) }).wav
    }

    @Test func anEnrolledVoiceIsNamedOnAnotherRecordingOfThatUser() async throws {
        try await TestPlatform.with { platform in
            let (_, token, userToken) = try await platform.newUser("wearer")
            // The wearer enrols "Me" with their own token; the partner enrols someone who is not in the recording.
            let mine = try await platform.upload(try sample(me), token: userToken)
            let enrolled = try await platform.send(
                "POST", APIPath.voiceprints, token: userToken, json: ["name": "Me", "file_id": mine.fileID])
            #expect(enrolled.status == 201, "\(enrolled.text)")
            let voiceprint = try enrolled.decode(SpeakerVoiceprint.self)
            #expect(voiceprint.userID == "wearer" && voiceprint.name == "Me" && voiceprint.speechMs > 3_000)
            let carol = try await platform.upload(try sample(absent), token: token)
            let carolPrint = try await platform.send(
                "POST", APIPath.voiceprints, token: token,
                json: ["name": "Carol", "file_id": carol.downloadURL, "user_id": "wearer"])
            #expect(carolPrint.status == 201, "\(carolPrint.text)")

            // A conversation between the wearer and someone else, transcribed for that user.
            let turns = SpeechSynthesis.dialogueLines.enumerated().map { ($0.offset % 2 == 0 ? me : other, $0.element) }
            let dialogue = try SpeechSynthesis.dialogue(turns)
            let recording = try await platform.upload(dialogue.wav, token: token)
            let task = try await platform.createTask(
                [
                    "file_url": recording.fileID, "model": "asr-fast", "language": "en", "user_id": "wearer",
                    "diarization": ["enabled": true, "max_speakers": 2],
                ], token: token
            ).decode(TranscriptionTask.self)
            let done = try await platform.waitForTask(task.taskID, token: token)
            try #require(done.status == .success, "\(done.error ?? "")")
            let segments = try #require(done.segments)
            let speakers = Set(segments.compactMap(\.speaker))
            #expect(speakers.contains("Me"), "\(segments)")
            #expect(!speakers.contains("Carol"), "\(segments)")
            #expect(segments.first?.speaker == "Me")
            // Every segment inside one of the wearer's turns is "Me", every other one is not.
            for segment in segments {
                let middle = Double(segment.startMs + segment.endMs) / 2000
                guard let turn = dialogue.spans.firstIndex(where: { $0.start <= middle && middle <= $0.end }) else {
                    continue
                }
                #expect((segment.speaker == "Me") == turn.isMultiple(of: 2), "\(segment)")
            }
            #expect(try await platform.export(task.taskID, "srt", token: token).contains("[Me]"))

            // The same recording for another user (no voiceprints) gets numbered speakers only.
            let anonymous = try await platform.createTask(
                [
                    "file_url": recording.fileID, "model": "asr-fast", "language": "en", "user_id": "someone-else",
                    "diarization": ["enabled": true, "speakers": 2],
                ], token: token
            ).decode(TranscriptionTask.self)
            let anonymousDone = try await platform.waitForTask(anonymous.taskID, token: token)
            #expect(Set(anonymousDone.segments?.compactMap(\.speaker) ?? []) == ["Speaker 1", "Speaker 2"])
        }
    }

    @Test func listingAndDeletingStayWithinTheUserAndTheTenant() async throws {
        try await TestPlatform.with { platform in
            let (_, token, userToken) = try await platform.newUser("u1")
            let neighbourToken = try await platform.userToken(partnerToken: token, userID: "u2")
            let file = try await platform.upload(try sample(me), token: userToken)
            let created = try await platform.send(
                "POST", APIPath.voiceprints, token: userToken, json: ["name": "Me", "file_id": file.fileID]
            ).decode(SpeakerVoiceprint.self)
            // Enrolling the same name again replaces it.
            let again = try await platform.send(
                "POST", APIPath.voiceprints, token: token,
                json: ["name": "Me", "file_id": file.fileID, "user_id": "u1"]
            ).decode(SpeakerVoiceprint.self)
            #expect(again.voiceprintID != created.voiceprintID)

            func list(_ token: String, _ query: String = "") async throws -> [String] {
                let response = try await platform.send("GET", APIPath.voiceprints + query, token: token)
                try #require(response.status == 200, "\(response.text)")
                return try response.decode(SpeakerVoiceprintList.self).voiceprints.map(\.voiceprintID)
            }
            #expect(try await list(userToken) == [again.voiceprintID])
            #expect(try await list(token, "?user_id=u1") == [again.voiceprintID])
            #expect(try await list(token) == [again.voiceprintID])
            #expect(try await list(neighbourToken).isEmpty)
            #expect(
                try await platform.send("GET", APIPath.voiceprints + "?user_id=u1", token: neighbourToken).status == 403
            )

            let otherPartner = try await platform.partnerToken(try await platform.createPartner("Other"))
            #expect(try await list(otherPartner, "?user_id=u1").isEmpty)
            let path = "/open/partner/voiceprints/\(again.voiceprintID)"
            #expect(try await platform.send("DELETE", path, token: otherPartner).status == 404)
            #expect(try await platform.send("DELETE", path, token: neighbourToken).status == 404)
            // Another tenant cannot enrol from this tenant's file either.
            let foreignFile = try await platform.send(
                "POST", APIPath.voiceprints, token: otherPartner,
                json: ["name": "Me", "file_id": file.fileID, "user_id": "u1"])
            #expect(foreignFile.status == 404)

            let deleted = try await platform.send("DELETE", path, token: userToken)
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(try await list(userToken).isEmpty)
            #expect(try await platform.send("DELETE", path, token: userToken).status == 404)
        }
    }

    @Test func badEnrolmentsAreRefusedWithAReason() async throws {
        try await TestPlatform.with { platform in
            let (_, token, userToken) = try await platform.newUser("u1")
            let voice = try await platform.upload(try sample(me), token: userToken)
            let short = try await platform.upload(
                try SpeechSynthesis.dialogue([(me, "Hello there.")]).wav, token: userToken)
            let notAudio = try await platform.upload(testContent(50_000), token: userToken)
            let neighbourToken = try await platform.userToken(partnerToken: token, userID: "u2")

            func enrol(_ body: [String: Any], _ token: String) async throws -> TestPlatform.HTTPResult {
                try await platform.send("POST", APIPath.voiceprints, token: token, json: body)
            }
            let noUser = try await enrol(["name": "Me", "file_id": voice.fileID], token)
            #expect(noUser.status == 400 && noUser.errorMessage.contains("user_id"), "\(noUser.text)")
            let otherUser = try await enrol(["name": "Me", "file_id": voice.fileID, "user_id": "u2"], userToken)
            #expect(otherUser.status == 403, "\(otherUser.text)")
            let emptyName = try await enrol(["name": " ", "file_id": voice.fileID], userToken)
            #expect(emptyName.status == 400 && emptyName.errorMessage.contains("empty"), "\(emptyName.text)")
            let missing = try await enrol(["name": "Me", "file_id": "file_00000000000000000000"], userToken)
            #expect(missing.status == 404, "\(missing.text)")
            // A user token only enrols from its own user's files.
            let neighbours = try await enrol(["name": "Me", "file_id": voice.fileID], neighbourToken)
            #expect(neighbours.status == 404, "\(neighbours.text)")
            let tooShort = try await enrol(["name": "Me", "file_id": short.fileID], userToken)
            #expect(tooShort.status == 400 && tooShort.errorMessage.contains("at least 3 s"), "\(tooShort.text)")
            let garbage = try await enrol(["name": "Me", "file_id": notAudio.fileID], userToken)
            #expect(garbage.status == 400 && garbage.errorMessage.contains("audio"), "\(garbage.text)")
            let malformed = try await platform.send(
                "POST", APIPath.voiceprints, token: userToken, body: Data("{\"name\":".utf8),
                headers: ["Content-Type": "application/json"])
            #expect(malformed.status == 400)
            let list = try await platform.send("GET", APIPath.voiceprints, token: userToken)
            #expect(try list.decode(SpeakerVoiceprintList.self).voiceprints.isEmpty)
        }
    }
}
