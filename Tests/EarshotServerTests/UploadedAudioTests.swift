import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// Uploaded files keep what they are (type, media type, original name) and the server's pipeline uses it: a WAV
/// gets the same compliance tiers as on the CLI — converted with warnings the task shows, or refused with the
/// conversion command naming the user's own file (never a server path) — whatever door it came through.
@Suite(.enabled(if: TestAudio.modelsInstalled, "speech models not installed (run `make models`)"))
struct UploadedAudioTests {
    /// `jfk.wav` converted by ffmpeg with `options` (e.g. 8-bit, µ-law).
    static func jfk(_ options: [String]) throws -> Data {
        let directory = try TestEnvironment.makeTemporaryDirectory("wav-tiers")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.wav")
        try FFmpeg.convert(TestEnvironment.jfk, to: output, options)
        return try Data(contentsOf: output)
    }

    /// Uploads `content` as `filename` (type from its extension) and returns the FileId.
    static func upload(_ content: Data, filename: String, token: String, on platform: TestPlatform) async throws
        -> String
    {
        let planned = try await platform.send(
            "POST", APIPath.generatePresignedURLs, token: token,
            json: ["filesize": content.count, "filetype": "wav", "filename": filename])
        let plan = try planned.decode(UploadPlan.self)
        var etags: [Int: String] = [:]
        for part in plan.parts {
            etags[part.partNumber] = try await platform.putPart(part.partNumber, of: content, plan: plan)
        }
        let done = try await platform.complete(plan, etags: etags, filetype: "wav", token: token)
        try #require(done.status == 200, "\(done.text)")
        return plan.fileID
    }

    @Test func aMismatchedWAVIsConvertedWithWarningsAndARefusedOneFailsNamingTheUsersFile() async throws {
        let eightBit = try Self.jfk(["-ar", "8000", "-ac", "2", "-c:a", "pcm_u8"])
        let muLaw = try Self.jfk(["-ar", "8000", "-ac", "1", "-c:a", "pcm_mulaw"])
        try await TestPlatform.with { platform in
            let (_, partner, _) = try await platform.newUser()
            let converted = try await Self.upload(eightBit, filename: "phone call.wav", token: partner, on: platform)
            let info = try await platform.send("GET", "/open/partner/files/\(converted)", token: partner)
                .decode(FileInfo.self)
            #expect(info.mediaType == "audio/wav")
            #expect(info.filename == "phone call.wav")
            let task = try await platform.createTask(["file_url": converted, "model": "asr-fast"], token: partner)
                .decode(TranscriptionTask.self)
            let done = try await platform.waitForTask(task.taskID, token: partner)
            #expect(done.status == .success, "\(done.error ?? "")")
            let warnings = done.warnings ?? []
            #expect(warnings.contains { $0.contains("8-bit") }, "\(warnings)")
            #expect(warnings.contains { $0.contains("8000 Hz") }, "\(warnings)")
            #expect(done.segments?.map(\.text).joined(separator: " ").lowercased().contains("country") == true)
            // The record it joined is named after the file.
            let record = try await platform.send(
                "GET", APIPath.filled(APIPath.record, ["record_id": try #require(done.recordID)]), token: partner
            ).decode(RecordDetail.self)
            #expect(record.record.title == "phone call")
            #expect(record.record.durationMs > 10_000)
            #expect(record.envelope != nil)

            let refused = try await Self.upload(muLaw, filename: "memo.wav", token: partner, on: platform)
            let failing = try await platform.createTask(["file_url": refused, "model": "asr-fast"], token: partner)
                .decode(TranscriptionTask.self)
            let failed = try await platform.waitForTask(failing.taskID, token: partner)
            #expect(failed.status == .failure)
            let error = failed.error ?? ""
            #expect(error.contains("µ-law") || error.contains("mu-law") || error.contains("not PCM"), "\(error)")
            #expect(error.contains("ffmpeg -i memo.wav"), "\(error)")
            #expect(!error.contains(platform.directory.path), "a server path leaked: \(error)")
            #expect(failed.attempts == 1)  // bad input is not retried
        }
    }

    @Test func theOpenAIEndpointAppliesTheSameTiersAndCanKeepTheRecording() async throws {
        let muLaw = try Self.jfk(["-ar", "8000", "-ac", "1", "-c:a", "pcm_mulaw"])
        let wav = try TestAudio.jfk()
        try await TestPlatform.with { platform in
            let (_, partner, _) = try await platform.newUser()
            let refused = try await platform.openAITranscription(
                file: muLaw, filename: "memo.wav", fields: ["model": "whisper-1"], token: partner)
            #expect(refused.status == 400)
            #expect(refused.errorMessage.contains("ffmpeg -i memo.wav"), "\(refused.text)")

            // store=true keeps the audio and its transcript as a record, with a finished task in its history.
            let kept = try await platform.openAITranscription(
                file: wav, filename: "inaugural.wav", fields: ["model": "whisper-1", "store": "true"], token: partner)
            #expect(kept.status == 200, "\(kept.text)")
            let recordID = try #require(kept.header("Earshot-Record-Id"))
            let record = try await platform.send(
                "GET", APIPath.filled(APIPath.record, ["record_id": recordID]), token: partner
            ).decode(RecordDetail.self)
            #expect(record.record.title == "inaugural")
            #expect(record.transcript?.sentences.map(\.text).joined(separator: " ").lowercased().contains("country") == true)
            #expect(record.tasks.count == 1 && record.tasks.first?.status == .success)
            #expect(record.envelope != nil)
            let found = try await platform.send("GET", APIPath.recordSearch + "?q=country", token: partner)
                .decode(RecordSearchResults.self)
            #expect(found.hits.map(\.record.recordID) == [recordID])
            // Without store, nothing is kept.
            let plain = try await platform.openAITranscription(
                file: wav, filename: "again.wav", fields: ["model": "whisper-1"], token: partner)
            #expect(plain.status == 200 && plain.header("Earshot-Record-Id") == nil)
            let all = try await platform.send("GET", APIPath.records, token: partner).decode(RecordList.self)
            #expect(all.records.count == 1)
        }
    }
}
