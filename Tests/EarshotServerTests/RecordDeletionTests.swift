import EarshotAPI
import EarshotStore
import Foundation
import Testing

@testable import EarshotServer

/// Issue 13, finding 15: `DELETE …/records/{id}` answered 204 and removed the file, but a transcription task made
/// earlier on it still returned the full text. Deleting a record deletes every copy of the user's words: the
/// transcript versions (task results), summaries, search rows, webhook payloads kept for redelivery, and the
/// voiceprints enrolled from its audio. Checked through every read path, then by scanning every table.
@Suite(
    .enabled(if: TestAudio.modelsInstalled && DiarizationFixtures.available, DiarizationFixtures.missing),
    .timeLimit(.minutes(30)))
struct RecordDeletionTests {
    @Test func deletingARecordLeavesItsWordsNowhere() async throws {
        let receiver = WebhookSafetyTests.Receiver()
        try await receiver.run { port in
            try await TestPlatform.with({ $0.llmManaged = false }) { platform in
                let (_, token, _) = try await platform.newUser("speaker")
                let file = try await platform.upload(try TestAudio.jfk(), token: token)
                // Seed 001's way: a task on the file (its record is made by the task), with a webhook.
                let created = try await platform.createTask(
                    [
                        "file_url": file.fileID, "model": "asr-fast", "user_id": "speaker",
                        "callback_url": "http://127.0.0.1:\(port)/hook",
                    ], token: token)
                try #require(created.status == 201, "\(created.text)")
                let taskID = try created.decode(TranscriptionTask.self).taskID
                let done = try await platform.waitForTask(taskID, token: token)
                try #require(done.status == .success, "\(done.error ?? "")")
                let words = try #require(done.segments?.map(\.text).joined(separator: " "))
                #expect(words.lowercased().contains("country"))
                let recordID = try #require(done.recordID)
                // A summary (extractive: no model needed) and a voiceprint enrolled from the same audio.
                let summarize = try await platform.send(
                    "POST", platform.recordPath(APIPath.recordTasks, recordID), token: token, json: ["task_type": 1])
                try #require(summarize.status == 201, "\(summarize.text)")
                let summary = try await platform.waitForRecordTask(
                    recordID, try summarize.decode(RecordTask.self).taskID, token: token)
                #expect(summary.status == .success)
                let enrolled = try await platform.send(
                    "POST", APIPath.voiceprints, token: token,
                    json: ["name": "JFK", "file_id": file.fileID, "user_id": "speaker"])
                #expect(enrolled.status == 201, "\(enrolled.text)")
                let deadline = ContinuousClock.now + .seconds(15)
                while receiver.count == 0, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(receiver.count >= 1)
                let search = try await platform.send("GET", APIPath.recordSearch + "?q=country", token: token)
                    .decode(RecordSearchResults.self)
                #expect(search.hits.map(\.record.recordID).contains(recordID))

                let deleted = try await platform.send(
                    "DELETE", platform.recordPath(APIPath.record, recordID), token: token)
                #expect(deleted.status == 204, "\(deleted.text)")

                // Every read path: the task, its export, the task list, its webhook log and redelivery, the record,
                // its tasks, search, the file, the voiceprints.
                let task = "/open/partner/transcriptions/\(taskID)"
                for path in [
                    task, task + "/export?format=txt", task + "/webhook/deliveries",
                    platform.recordPath(APIPath.record, recordID), platform.recordPath(APIPath.recordTasks, recordID),
                    platform.recordPath(APIPath.recordExport, recordID),
                    APIPath.filled(APIPath.file, ["file_id": file.fileID]),
                ] {
                    let response = try await platform.send("GET", path, token: token)
                    #expect(response.status == 404, "GET \(path): \(response.status) \(response.text.prefix(200))")
                }
                let redeliver = try await platform.send("POST", task + "/webhook/redeliver", token: token)
                #expect(redeliver.status == 404)
                let list = try await platform.send("GET", APIPath.transcriptions, token: token)
                #expect(!list.text.contains(taskID))
                let after = try await platform.send("GET", APIPath.recordSearch + "?q=country", token: token)
                    .decode(RecordSearchResults.self)
                #expect(after.hits.isEmpty)
                let voiceprints = try await platform.send("GET", APIPath.voiceprints + "?user_id=speaker", token: token)
                    .decode(SpeakerVoiceprintList.self)
                #expect(voiceprints.voiceprints.isEmpty, "a voiceprint still refers to the deleted audio")

                // And no table holds the words, or anything naming the file, any more.
                let store = try await platform.openStore()
                let leftovers = try await store.read { db in
                    try Self.rows(in: db, containing: ["ask not what your country", file.fileID, taskID])
                }
                await store.close()
                #expect(leftovers.isEmpty, "\(leftovers)")
            }
        }
    }

    /// `table.column` of every row whose text (or blob read as text) contains one of `needles`, case-insensitively.
    static func rows(in db: any SQLDatabase, containing needles: [String]) throws -> [String] {
        let tables = try db.query("SELECT name FROM sqlite_master WHERE type = 'table'").map {
            try $0.decode("name", as: String.self)
        }
        var found: [String] = []
        for table in tables {
            let columns = try db.query("SELECT name FROM pragma_table_info(?)", table).map {
                try $0.decode("name", as: String.self)
            }
            for column in columns {
                for needle in needles {
                    let hits =
                        try db.scalar(
                            "SELECT COUNT(*) FROM \"\(table)\" WHERE instr(lower(CAST(\"\(column)\" AS TEXT)), lower(?)) > 0",
                            needle, as: Int.self) ?? 0
                    if hits > 0 { found.append("\(table).\(column) ∋ \(needle)") }
                }
            }
        }
        return found
    }
}
