import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Transcription tasks against a real server with the real speech engine: the seed's whole flow, export,
/// revoke, failures, tenancy, partner-only access, idempotency and the no-SSRF rule for `file_url`.
@Suite(.enabled(if: TestAudio.modelsInstalled, "speech models not installed (run `make models`)"))
struct TranscriptionTaskTests {
    @Test func theSeedFlowEndsInSegmentsWithTimestamps() async throws {
        try await TestPlatform.with({ $0.apiPrefix = "/developer/api" }) { platform in
            let partner = try await platform.createPartner()
            let api = platform.base.absoluteString + "/developer/api"
            let partnerToken = try await platform.send(
                "POST", api + APIPath.partnerToken,
                json: ["client_id": partner.clientID, "client_secret": partner.clientSecret]
            ).decode(TokenResponse.self).accessToken
            let userToken = try await platform.send(
                "POST", api + APIPath.userToken, token: partnerToken, json: ["user_id": "seed-user"]
            ).decode(TokenResponse.self).accessToken

            // The app uploads with its user token: plan, parallel part PUTs, complete.
            let audio = try TestAudio.jfk()
            let planResponse = try await platform.send(
                "POST", api + APIPath.generatePresignedURLs, token: userToken,
                json: ["filesize": audio.count, "filetype": "wav"])
            let plan = try planResponse.decode(UploadPlan.self)
            let etags = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for part in plan.parts {
                    group.addTask {
                        (part.partNumber, try await platform.putPart(part.partNumber, of: audio, plan: plan))
                    }
                }
                return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }
            let done = try await platform.send(
                "POST", api + APIPath.completeUpload, token: userToken,
                json: [
                    "file_id": plan.fileID, "upload_id": plan.uploadID, "filetype": "wav",
                    "part_list": etags.sorted { $0.key < $1.key }.map { ["part_number": $0.key, "etag": $0.value] },
                ])
            let completion = try done.decode(CompleteUploadResponse.self)

            // The partner backend creates the task from the DownloadUrl the app reported.
            let created = try await platform.send(
                "POST", api + APIPath.transcriptions, token: partnerToken,
                json: ["file_url": completion.downloadURL, "model": "asr-fast", "user_id": "seed-user"])
            #expect(created.status == 201, "\(created.text)")
            let task = try created.decode(TranscriptionTask.self)
            #expect(task.status == .pending)
            #expect(task.fileID == plan.fileID)

            // …and polls it as the seed does, seeing only the documented states.
            var seen: [TaskStatus] = []
            let deadline = ContinuousClock.now + .seconds(180)
            var final: TranscriptionTask?
            while ContinuousClock.now < deadline {
                let response = try await platform.send(
                    "GET", api + "/open/partner/transcriptions/\(task.taskID)", token: partnerToken)
                let current = try response.decode(TranscriptionTask.self)
                if seen.last != current.status { seen.append(current.status) }
                if current.status.isFinal {
                    final = current
                    break
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            let finished = try #require(final)
            #expect(finished.status == .success, "\(finished.error ?? "")")
            #expect(seen.first == .pending || seen.first == .received || seen.first == .started)
            #expect(Set(seen).isSubset(of: [.pending, .received, .started, .progress, .success]))
            #expect(finished.progress == 100)
            #expect(finished.language == "en")
            #expect((10_900...11_100).contains(finished.durationMs ?? 0))
            let segments = try #require(finished.segments)
            #expect(!segments.isEmpty)
            let text = segments.map(\.text).joined(separator: " ").lowercased()
            #expect(text.contains("ask not what your country can do for you"))
            #expect(segments.allSatisfy { $0.startMs < $0.endMs && $0.endMs <= 11_100 })
            #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.startMs <= $1.startMs })
            // The raw JSON has the seed's keys, speaker as explicit null.
            let raw = try await platform.send(
                "GET", api + "/open/partner/transcriptions/\(task.taskID)", token: partnerToken)
            let first = try #require((raw.object?["segments"] as? [[String: Any]])?.first)
            #expect(Set(first.keys) == ["speaker", "start_ms", "end_ms", "text"])
            #expect(first["speaker"] is NSNull)

            // Exports.
            let srt = try await platform.send(
                "GET", api + "/open/partner/transcriptions/\(task.taskID)/export?format=srt", token: partnerToken)
            #expect(srt.status == 200)
            #expect(srt.text.hasPrefix("1\n00:00:0"))
            #expect(srt.text.contains(" --> "))
            #expect(srt.header("Content-Disposition") == "attachment; filename=\"\(task.taskID).srt\"")
            let vtt = try await platform.send(
                "GET", api + "/open/partner/transcriptions/\(task.taskID)/export?format=vtt", token: partnerToken)
            #expect(vtt.text.hasPrefix("WEBVTT\n\n00:00:0"))
            #expect(vtt.header("Content-Type")?.hasPrefix("text/vtt") == true)
            let txt = try await platform.send(
                "GET", api + "/open/partner/transcriptions/\(task.taskID)/export?format=txt", token: partnerToken)
            #expect(txt.text.lowercased().contains("ask not what your country"))
            let json = try await platform.send(
                "GET", api + "/open/partner/transcriptions/\(task.taskID)/export?format=json", token: partnerToken)
            #expect((json.object?["segments"] as? [Any])?.count == segments.count)
            let bad = try await platform.send(
                "GET", api + "/open/partner/transcriptions/\(task.taskID)/export?format=docx", token: partnerToken)
            #expect(bad.status == 400)

            // Listed, newest first; metrics count it (the queue gauge is refreshed by the reaper every few seconds).
            let list = try await platform.send("GET", api + APIPath.transcriptions, token: partnerToken)
            #expect(try list.decode(TranscriptionTaskList.self).tasks.map(\.taskID) == [task.taskID])
            var metrics = ""
            let metricsDeadline = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < metricsDeadline {
                metrics = try await platform.send("GET", "/metrics").text
                if metrics.contains("earshot_jobs{kind=\"transcription\",state=\"succeeded\"} 1") { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(metrics.contains("earshot_jobs{kind=\"transcription\",state=\"succeeded\"} 1"))
            #expect(metrics.contains("earshot_jobs{kind=\"transcription\",state=\"queued\"} 0"))
            #expect(metrics.contains("earshot_jobs_finished_total{kind=\"transcription\",state=\"succeeded\"} 1"))
            #expect(metrics.contains("earshot_job_run_seconds_count{kind=\"transcription\"} 1"))
            #expect(metrics.contains("earshot_job_total_seconds_bucket{kind=\"transcription\",le=\"+Inf\"} 1"))
            #expect(metrics.contains("earshot_jobs_running{kind=\"record-note\"} 0"))

            // The task is a job of its file's record: the recording is in the library with its transcript, found
            // by search, and exported as a note.
            let recordID = try #require(finished.recordID)
            let records = try await platform.send("GET", api + APIPath.records, token: partnerToken)
                .decode(RecordList.self)
            #expect(records.records.map(\.recordID) == [recordID])
            #expect(records.records.first?.hasTranscript == true)
            #expect(records.records.first?.fileID == plan.fileID)
            #expect(records.records.first?.userID == "seed-user")
            let found = try await platform.send(
                "GET", api + APIPath.recordSearch + "?q=your%20country", token: partnerToken
            ).decode(RecordSearchResults.self)
            #expect(found.hits.map(\.record.recordID) == [recordID])
            let note = try await platform.send(
                "GET", api + APIPath.filled(APIPath.recordExport, ["record_id": recordID])
                    + "?format=md", token: partnerToken)
            #expect(note.text.lowercased().contains("ask not what your country"), "\(note.text)")
            let tasks = try await platform.send(
                "GET", api + APIPath.filled(APIPath.recordTasks, ["record_id": recordID]),
                token: partnerToken
            ).decode(RecordTaskList.self)
            #expect(tasks.tasks.map(\.taskID) == [task.taskID])
        }
    }

    @Test func revokeStopsARunningDecodePromptly() async throws {
        try await TestPlatform.with { platform in
            let (_, partnerToken, _) = try await platform.newUser()
            let file = try await platform.upload(try TestAudio.longJFK(times: 12), token: partnerToken)
            let created = try await platform.createTask(
                ["file_url": file.fileID, "model": "asr-fast"], token: partnerToken)
            let task = try created.decode(TranscriptionTask.self)
            _ = try await platform.waitForTask(task.taskID, token: partnerToken) {
                $0.status == .started || $0.status == .progress || $0.status.isFinal
            }
            let started = ContinuousClock.now
            let revoked = try await platform.send(
                "POST", "/open/partner/transcriptions/\(task.taskID)/revoke", token: partnerToken)
            #expect(revoked.status == 200, "\(revoked.text)")
            #expect(try revoked.decode(TranscriptionTask.self).status == .revoked)
            // The worker lets go quickly: a new task is picked up and finishes (the decode slot is free again).
            let next = try await platform.upload(try TestAudio.jfk(), token: partnerToken)
            let second = try await platform.createTask(
                ["file_url": next.fileID, "model": "asr-fast"], token: partnerToken
            ).decode(TranscriptionTask.self)
            _ = try await platform.waitForTask(second.taskID, token: partnerToken) { $0.status != .pending }
            #expect(ContinuousClock.now - started < .seconds(10))
            let after = try await platform.task(task.taskID, token: partnerToken)
            #expect(after.status == .revoked)
            #expect(after.segments == nil)
            // Revoking again is a no-op; revoking a finished task is a conflict.
            let again = try await platform.send(
                "POST", "/open/partner/transcriptions/\(task.taskID)/revoke", token: partnerToken)
            #expect(again.status == 200)
            let finished = try await platform.waitForTask(second.taskID, token: partnerToken)
            #expect(finished.status == .success)
            let late = try await platform.send(
                "POST", "/open/partner/transcriptions/\(second.taskID)/revoke", token: partnerToken)
            #expect(late.status == 409)
            #expect(late.errorCode == "CONFLICT")
            let export = try await platform.send(
                "GET", "/open/partner/transcriptions/\(task.taskID)/export?format=srt", token: partnerToken)
            #expect(export.status == 409)
        }
    }

    @Test func audioThatCannotBeDecodedFailsOnceWithAReason() async throws {
        try await TestPlatform.with { platform in
            let (_, partnerToken, _) = try await platform.newUser()
            let file = try await platform.upload(testContent(100_000), token: partnerToken)
            let task = try await platform.createTask(
                ["file_url": file.downloadURL, "model": "asr-pro"], token: partnerToken
            ).decode(TranscriptionTask.self)
            let finished = try await platform.waitForTask(task.taskID, token: partnerToken)
            #expect(finished.status == .failure)
            #expect(finished.attempts == 1)
            #expect(finished.error?.contains("audio could not be decoded") == true, "\(finished.error ?? "")")
            #expect(finished.segments == nil)
        }
    }
}
