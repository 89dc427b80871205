import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// Offline tasks on records with the real speech engine: transcription through the transcription workers,
/// re-runs with history, Whisper's speech translation to English, summaries and transcript translations from the
/// configured provider (the managed llama-server), and a clear failure when no language model is configured.
@Suite(.enabled(if: TestAudio.modelsInstalled, "speech models not installed (run `make models`)"))
struct RecordsTaskTests {
    @Test func transcribingTwiceReplacesTheTranscriptAndKeepsTheHistory() async throws {
        try await TestPlatform.with { platform in
            let (_, _, user) = try await platform.newUser()
            let id = try await platform.createRecord(token: user, ["title": "Inaugural"]).record.recordID
            var taskIDs: [String] = []
            for _ in 0..<2 {
                let created = try await platform.send(
                    "POST", platform.recordPath(APIPath.recordTasks, id), token: user, json: ["task_type": 0])
                #expect(created.status == 201, "\(created.text)")
                let task = try created.decode(RecordTask.self)
                #expect(task.status == .pending)
                #expect(task.taskType == 0 && task.model == "asr-fast")
                // Lists show it while it is queued or running (a decode of 11 s of speech takes far longer than
                // this read), and no more once it ended.
                let listed = try await platform.send("GET", APIPath.records, token: user).decode(RecordList.self)
                #expect(listed.records.first { $0.recordID == id }?.runningTasks?.map(\.taskID) == [task.taskID])
                let done = try await platform.waitForRecordTask(id, task.taskID, token: user)
                #expect(done.status == .success, "\(done.error ?? "")")
                let after = try await platform.send("GET", APIPath.records, token: user).decode(RecordList.self)
                #expect(after.records.first { $0.recordID == id }?.runningTasks == [])
                taskIDs.append(task.taskID)
            }
            let history = try await platform.send("GET", platform.recordPath(APIPath.recordTasks, id), token: user)
                .decode(RecordTaskList.self)
            #expect(history.tasks.map(\.taskID) == taskIDs.reversed())
            #expect(history.tasks.allSatisfy { $0.status == .success && $0.progress == 100 })

            let detail = try await platform.send("GET", platform.recordPath(APIPath.record, id), token: user)
                .decode(RecordDetail.self)
            #expect(detail.record.hasTranscript)
            #expect(detail.record.language == "en")
            let transcript = try #require(detail.transcript)
            #expect(transcript.sentences.map(\.text).joined(separator: " ").lowercased().contains("country"))
            #expect(detail.tasks.map(\.taskID) == taskIDs.reversed())

            // The transcript is searchable, with the sentence's start time to seek to.
            let found = try await platform.send("GET", APIPath.recordSearch + "?q=country", token: user)
                .decode(RecordSearchResults.self)
            let hit = try #require(found.hits.first)
            #expect(hit.record.recordID == id)
            let match = try #require(hit.matches.first { $0.field == "transcript" })
            #expect(
                transcript.sentences.contains {
                    $0.startMs == match.startMs && $0.text.lowercased().contains("country")
                })
            #expect(match.snippet.lowercased().contains("<em>country</em>"))
            // Exports now have the transcript.
            let srt = try await platform.send(
                "GET", platform.recordPath(APIPath.recordExport, id) + "?format=srt", token: user)
            #expect(srt.status == 200)
            #expect(srt.text.hasPrefix("1\n00:00:0"))
            let note = try await platform.send(
                "GET", platform.recordPath(APIPath.recordExport, id) + "?format=md", token: user)
            #expect(note.text.hasPrefix("# Inaugural\n"))
            #expect(note.text.contains("## Transcript\n\n[00:00]"))
        }
    }

    @Test func speechTranslationToEnglishNeedsNoLanguageModel() async throws {
        try await TestPlatform.with { platform in
            let (_, partner, _) = try await platform.newUser()
            let upload = try await platform.upload(try TestAudio.jfk(), token: partner)
            let id = try await platform.send(
                "POST", APIPath.records, token: partner, json: ["file_id": upload.fileID]
            ).decode(RecordDetail.self).record.recordID
            let created = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, id), token: partner,
                json: ["task_type": 2, "target_language": "en", "source": "speech"])
            #expect(created.status == 201, "\(created.text)")
            let task = try created.decode(RecordTask.self)
            #expect(task.source == "speech" && task.targetLanguage == "en")
            let done = try await platform.waitForRecordTask(id, task.taskID, token: partner)
            #expect(done.status == .success, "\(done.error ?? "")")
            let detail = try await platform.send("GET", platform.recordPath(APIPath.record, id), token: partner)
                .decode(RecordDetail.self)
            #expect(detail.record.translations == ["en"])
            #expect(!detail.record.hasTranscript)
            let translation = try #require(detail.translations["en"])
            #expect(translation.method == "speech")
            #expect(translation.model == "asr-fast")
            #expect(!translation.sentences.isEmpty)
            #expect(translation.sentences.allSatisfy { $0.endMs >= $0.startMs && $0.endMs <= 11_100 })
            #expect(translation.sentences.map(\.text).joined(separator: " ").lowercased().contains("country"))
            let note = try await platform.send(
                "GET", platform.recordPath(APIPath.recordExport, id) + "?format=md", token: partner)
            #expect(note.text.contains("## Translation (en)\n\n_Translated from the speech by Whisper._"))
        }
    }

    /// Transcribes the inaugural clip into a new record of a new user; returns the record id and the user's token.
    private func transcribedRecord(_ platform: TestPlatform) async throws -> (String, String) {
        let (_, _, user) = try await platform.newUser()
        let id = try await platform.createRecord(token: user, ["title": "Inaugural"]).record.recordID
        let transcribe = try await platform.send(
            "POST", platform.recordPath(APIPath.recordTasks, id), token: user, json: ["task_type": 0]
        ).decode(RecordTask.self)
        #expect(try await platform.waitForRecordTask(id, transcribe.taskID, token: user).status == .success)
        return (id, user)
    }

    @Test func summariesAndTranslationsComeFromTheConfiguredProvider() async throws {
        // The default configuration: the managed llama-server with SmolLM2 (started on first use); `auto` lets the
        // extractive summary lead for that model (docs/notes.md).
        try await TestPlatform.with { platform in
            let (id, user) = try await transcribedRecord(platform)
            let before = try await platform.send("GET", platform.recordPath(APIPath.record, id), token: user)
                .decode(RecordDetail.self)
            let sentences = try #require(before.transcript?.sentences)
            let end = try #require(sentences.map(\.endMs).max())

            let summarize = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, id), token: user, json: ["task_type": 1]
            ).decode(RecordTask.self)
            let summarized = try await platform.waitForRecordTask(id, summarize.taskID, token: user)
            #expect(summarized.status == .success, "\(summarized.error ?? "")")

            let translate = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, id), token: user,
                json: ["task_type": 2, "target_language": "fr"]
            ).decode(RecordTask.self)
            let translated = try await platform.waitForRecordTask(
                id, translate.taskID, token: user, timeout: .seconds(240))
            // SmolLM2-135M is weak at French: its translation passes the quality gate, or the task fails honestly
            // with a code and what to configure (never a SUCCESS full of invented sentences).
            if translated.status == .failure {
                #expect(translated.errorCode == "LOW_QUALITY_OUTPUT", "\(translated.error ?? "")")
                #expect(translated.error?.contains("llm-base-url") == true)
            } else {
                #expect(translated.status == .success, "\(translated.error ?? "")")
            }
            // auto picks the extractive summary for the built-in model, and the task says so.
            #expect(summarized.warnings?.contains { $0.contains("summary-method is extractive") } == true)

            let detail = try await platform.send("GET", platform.recordPath(APIPath.record, id), token: user)
                .decode(RecordDetail.self)
            let summary = try #require(detail.summary)
            #expect(summary.method == "extractive")
            #expect(!summary.abstract.isEmpty && !summary.keyPoints.isEmpty)
            #expect(summary.keyPoints.allSatisfy { 0 <= $0.startMs && $0.startMs <= $0.endMs && $0.endMs <= end })
            if translated.status == .success {
                let translation = try #require(detail.translations["fr"])
                #expect(translation.method == "llm")
                #expect(translation.sentences.map(\.startMs) == sentences.map(\.startMs))
                #expect(translation.sentences.map(\.endMs) == sentences.map(\.endMs))
                #expect(translation.detectedLanguage == nil || translation.detectedLanguage == "fr")
            } else {
                #expect(detail.translations["fr"] == nil)
            }
            #expect(detail.tasks.map(\.taskType) == [2, 1, 0])

            let note = try await platform.send(
                "GET", platform.recordPath(APIPath.recordExport, id) + "?format=md", token: user)
            #expect(note.text.contains("## Summary"))
            #expect(note.text.contains(summary.abstract))
        }
    }

    @Test func aTranscriptTranslationWithoutAnyLanguageModelFailsAtOnceSayingWhatToConfigure() async throws {
        try await TestPlatform.with({ $0.llmManaged = false }) { platform in
            let (id, user) = try await transcribedRecord(platform)
            let created = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, id), token: user,
                json: ["task_type": 2, "target_language": "ja"])
            #expect(created.status == 201, "\(created.text)")
            let task = try created.decode(RecordTask.self)
            let done = try await platform.waitForRecordTask(id, task.taskID, token: user, timeout: .seconds(60))
            #expect(done.status == .failure)
            #expect(done.errorCode == "NOT_CONFIGURED")
            #expect(done.error?.contains("llm-base-url") == true, "\(done.error ?? "")")
            #expect(done.attempts == 1)
            // The extractive summary needs no model.
            let summarize = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, id), token: user, json: ["task_type": 1]
            ).decode(RecordTask.self)
            #expect(try await platform.waitForRecordTask(id, summarize.taskID, token: user).status == .success)
            let detail = try await platform.send("GET", platform.recordPath(APIPath.record, id), token: user)
                .decode(RecordDetail.self)
            #expect(detail.summary?.method == "extractive")
            #expect(detail.translations.isEmpty)
        }
    }
}
