import EarshotCore
import EarshotLive
import EarshotNotes
import EarshotSpeech
import EarshotStore
import Foundation

/// Live sessions become records when they end (docs/decisions/0012-live-session-records.md).
extension RecordsService {
    /// Makes a finished live session a record of `caller` (`source: "live"`, id `id`, recorded when the session
    /// began): its WAV file is moved into the blob store, and its transcript — one segment per item with text, on
    /// the session's audio clock — is kept as a finished transcription task in its history, so it is searchable,
    /// exportable and can be transcribed again like any record. The translations the session sent (`translate_to`,
    /// a dialogue's) become the record's translations, one finished task 2 per language (``translations(of:)``).
    /// Returns the record.
    func keepLive(_ recorded: LiveRecording.Recorded, id: String, startedAt: Int64, for caller: Principal)
        async throws -> RecordRow
    {
        let transcript = Self.transcript(of: recorded)
        let model = EngineRecognizer.tier(recorded.items.last?.model) ?? "asr-fast"
        let result = String(decoding: try TranscriptionService.encoder.encode(transcript), as: UTF8.self)
        let translations = try Self.translations(of: recorded).map { translation in
            (translation, String(decoding: try TranscriptionService.encoder.encode(translation), as: UTF8.self))
        }
        let at = now()
        let queue = tasks.queue
        let record = try await uploads.keep(
            movingFile: recorded.file, owner: (caller.partnerID, caller.userID), filetype: "wav", originalName: nil
        ) { db, stored in
            let record = try Library.insert(
                db,
                .init(
                    id: id, partnerID: caller.partnerID, userID: caller.userID, file: stored,
                    title: Library.defaultTitle(file: nil, recordTime: startedAt, prefix: "Live"),
                    recordTime: startedAt, language: transcript.language.isEmpty ? nil : transcript.language,
                    source: "live", durationMs: recorded.durationMs, envelope: recorded.envelope), at: at)
            let payload = TranscriptionPayload(
                fileID: stored.id, model: model, language: nil, task: "transcribe", diarization: nil,
                callbackURL: nil, userID: caller.userID)
            let job = NewJob(
                id: Identifier.make(prefix: "task"), tenant: caller.partnerID, subject: caller.userID,
                kind: TranscriptionJob.name, payload: try Self.json(payload))
            // The link first: the queue's final-state hook copies the transcript into the linked record and indexes it.
            try RecordTasks.link(
                db, jobID: job.id, recordID: record.id, plan: RecordTaskPlan(transcription: payload), at: startedAt)
            try queue.insertSucceeded(db, job, result: result, startedAt: startedAt)
            for (translation, result) in translations {
                let plan = RecordTaskPlan.translateTranscript(target: translation.targetLanguage)
                let payload = RecordTasks.NotePayload(
                    recordID: record.id, taskType: 2, targetLanguage: translation.targetLanguage)
                let job = NewJob(
                    id: Identifier.make(prefix: "task"), tenant: caller.partnerID, subject: caller.userID,
                    kind: RecordNoteJob.name, payload: try Self.json(payload))
                try RecordTasks.link(db, jobID: job.id, recordID: record.id, plan: plan, at: startedAt)
                try queue.insertSucceeded(db, job, result: result, startedAt: startedAt)
            }
            return record
        }
        logger.info(
            "live session kept",
            metadata: [
                "record": record.id, "duration_ms": "\(recorded.durationMs)",
                "segments": "\(transcript.segments.count)", "translations": "\(translations.count)",
            ])
        return record
    }

    /// The transcript of a finished session: a segment per item with text, failed items named in `warnings`.
    static func transcript(of recorded: LiveRecording.Recorded) -> Transcript {
        let segments = recorded.items.compactMap { item -> Transcript.Segment? in
            guard let text = item.text, !text.isEmpty else { return nil }
            return Transcript.Segment(
                speaker: speaker(of: item), startMs: item.startMs, endMs: min(item.endMs, recorded.durationMs),
                text: text, words: item.words.filter { $0.startMs < recorded.durationMs })
        }
        let warnings = recorded.items.compactMap { item in
            item.failure.map { "item \(item.id) (\(item.startMs)–\(item.endMs) ms) was not transcribed: \($0)" }
        }
        return Transcript(
            language: recorded.items.lazy.compactMap(\.language).first ?? "", languageProbability: nil,
            durationMs: recorded.durationMs, speechMs: segments.reduce(0) { $0 + $1.endMs - $1.startMs },
            segments: segments, warnings: warnings)
    }

    /// A dialogue item's speaker label: its side and the language spoken there (`Channel 0 (en)`); nil outside a
    /// dialogue.
    static func speaker(of item: LiveItem) -> String? {
        item.channel.map { channel in "Channel \(channel)" + (item.language.map { " (\($0))" } ?? "") }
    }

    /// The session's translations, one per language it translated into: the whole conversation in that language,
    /// segment by segment on the session's clock — each item's translation, or its own text when it was spoken in
    /// that language (a dialogue's other side); an item with neither is left out and named in `warnings`. Into
    /// English the method is Whisper's speech translation, otherwise the language model's.
    static func translations(of recorded: LiveRecording.Recorded) -> [NoteTranslation] {
        let languages = Set(recorded.translations.values.flatMap(\.keys)).sorted()
        return languages.map { language in
            var segments: [NoteSegment] = []
            var warnings: [String] = []
            for item in recorded.items {
                guard let text = item.text, !text.isEmpty else { continue }
                let end = min(item.endMs, recorded.durationMs)
                if let translation = recorded.translations[item.id]?[language] {
                    segments.append(
                        NoteSegment(startMs: item.startMs, endMs: end, speaker: speaker(of: item), text: translation))
                } else if item.language.map(LiveInterpreter.normalize) == language {
                    segments.append(
                        NoteSegment(startMs: item.startMs, endMs: end, speaker: speaker(of: item), text: text))
                } else {
                    warnings.append(
                        "item \(item.id) (\(item.startMs)–\(item.endMs) ms) has no trustworthy translation into "
                            + language)
                }
            }
            return NoteTranslation(
                targetLanguage: language, segments: segments, method: language == "en" ? .speech : .languageModel,
                warnings: warnings)
        }
    }
}
