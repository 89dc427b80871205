import EarshotAPI
import EarshotCore
import EarshotCrypto
import EarshotModels
import EarshotNotes
import EarshotSpeech
import EarshotStore
import Foundation

/// Offline tasks on a record (`task_type` 0 transcribe, 1 summarize, 2 translate) on the durable ``JobQueue``.
///
/// Transcription (0) and speech translation to English (2 with `source: "speech"`) are ordinary transcription
/// jobs, run by the ``TranscriptionWorkers``; summaries (1) and transcript translations (2) are `record-note`
/// jobs, run by ``RecordNotesRunner``. A `record_tasks` row links each job to its record and is the record's task
/// history; when a job succeeds, ``applyFinal(_:_:)`` — called by the queue in the transaction that makes the job
/// final — copies its result into the record, replacing the previous transcript, summary or translation.
struct RecordTasks: Sendable {
    /// The queue kind of summary and transcript-translation jobs.
    static let noteKind = "record-note"
    /// The target languages offered for translation (the seed's 14).
    static let languages = ["zh", "en", "ja", "ko", "fr", "de", "es", "ru", "it", "pt", "th", "vi", "ar", "hi"]

    let queue: JobQueue
    let metadata: any MetadataStore
    let running: RunningTasks
    let maxAttempts: Int

    /// What a `record-note` job carries.
    struct NotePayload: Codable, Sendable, Hashable {
        var recordID: String
        var taskType: Int
        var targetLanguage: String?

        enum CodingKeys: String, CodingKey {
            case recordID = "record_id"
            case taskType = "task_type"
            case targetLanguage = "target_language"
        }
    }

    // MARK: Create

    func create(for caller: Principal, record: RecordRow, _ request: RecordTaskRequest) async throws -> RecordTask {
        try caller.require(.recordsWrite)
        guard (0...2).contains(request.taskType) else {
            throw PlatformError.invalidArgument(
                "task_type \(request.taskType) is unknown; use 0 (transcribe), 1 (summarize) or 2 (translate)")
        }
        let target = request.targetLanguage?.trimmingCharacters(in: .whitespaces).lowercased()
        var source: String?
        if request.taskType == 2 {
            guard let target else {
                throw PlatformError.invalidArgument(
                    "target_language is required for task_type 2: one of \(Self.languages.joined(separator: ", "))")
            }
            guard Self.languages.contains(target) else {
                throw PlatformError.invalidArgument(
                    "target_language \"\(target.prefix(16))\" is not offered; use one of "
                        + Self.languages.joined(separator: ", "))
            }
            source = request.source ?? "transcript"
            guard source == "transcript" || source == "speech" else {
                throw PlatformError.invalidArgument(
                    "source \"\(request.source!.prefix(32))\" is unknown; use transcript (language model) or speech")
            }
            if source == "speech" && target != "en" {
                throw PlatformError.invalidArgument(
                    "speech translation (Whisper) only produces English; use target_language en, or source "
                        + "transcript for \(target)")
            }
        } else {
            if target != nil {
                throw PlatformError.invalidArgument("target_language only applies to task_type 2 (translate)")
            }
            if request.source != nil {
                throw PlatformError.invalidArgument("source only applies to task_type 2 (translate)")
            }
        }
        if let diarization = request.diarization {
            guard request.taskType == 0 else {
                throw PlatformError.invalidArgument("diarization only applies to task_type 0 (transcribe)")
            }
            try TranscriptionService.validate(diarization)
        }
        let speech = request.taskType == 0 || source == "speech"
        var model: String?
        if speech {
            model = request.model ?? "asr-fast"
            guard ModelTier.named(model!) != nil else {
                throw PlatformError.invalidArgument(ModelTier.notOfferedMessage(model!))
            }
        } else {
            if request.model != nil {
                throw PlatformError.invalidArgument(
                    "model selects the speech tier (asr-fast, asr-pro) of task_type 0 and speech translation; the "
                        + "summarizer's model is configured on the server")
            }
            if record.transcriptJSON == nil {
                throw PlatformError.conflict(
                    "record \(record.id) has no transcript yet; run task_type 0 (transcribe) first")
            }
        }
        let kind: String
        let payload: String
        if speech {
            kind = TranscriptionService.kind
            payload = try RecordsService.json(
                TranscriptionPayload(
                    fileID: record.fileID, model: model!, language: request.taskType == 0 ? record.language : nil,
                    task: request.taskType == 0 ? "transcribe" : "translate", diarization: request.diarization,
                    callbackURL: nil,
                    userID: record.userID))
        } else {
            kind = Self.noteKind
            payload = try RecordsService.json(
                NotePayload(recordID: record.id, taskType: request.taskType, targetLanguage: target))
        }
        let jobID = Identifier.make(prefix: "task")
        let at = queue.now()
        let (taskSource, taskModel) = (source, model)
        // The link goes in first, so the job's final-state hook always finds it.
        try await metadata.write { db in
            try db.execute(
                "INSERT INTO record_tasks (job_id, record_id, task_type, target_language, source, model, created_at) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?)",
                jobID, record.id, request.taskType, target, taskSource, taskModel, at)
        }
        let job: Job
        do {
            job = try await queue.enqueue(
                NewJob(
                    id: jobID, tenant: record.partnerID, subject: record.userID, kind: kind, payload: payload,
                    maxAttempts: maxAttempts, idempotencyKey: nil,
                    requestHash: DigestAlgorithm.sha256.hash(Array(payload.utf8)).hex)
            ).job
        } catch {
            _ = try? await metadata.write { db in try db.execute("DELETE FROM record_tasks WHERE job_id = ?", jobID) }
            throw error
        }
        return Self.wire(
            job,
            link: Link(
                recordID: record.id, taskType: request.taskType, targetLanguage: target, source: source,
                model: model))
    }

    // MARK: Read

    func list(for caller: Principal, recordID: String, limit: Int = 200) async throws -> [RecordTask] {
        try await metadata.read { db in
            try db.query(
                "SELECT t.record_id, t.task_type, t.target_language, t.source, t.model, \(Self.jobColumns) "
                    + "FROM record_tasks t JOIN jobs j ON j.id = t.job_id WHERE t.record_id = ? AND j.tenant = ? "
                    + "ORDER BY j.created_at DESC, j.id DESC LIMIT ?",
                [.text(recordID), .text(caller.partnerID), .integer(Int64(limit))]
            ).map { row in Self.wire(try row.decode(Job.self), link: try row.decode(Link.self)) }
        }
    }

    func task(for caller: Principal, recordID: String, taskID: String) async throws -> RecordTask {
        guard Identifier.isValid(taskID, prefix: "task"),
            let task = try await metadata.read({ db in
                try db.queryFirst(
                    "SELECT t.record_id, t.task_type, t.target_language, t.source, t.model, \(Self.jobColumns) "
                        + "FROM record_tasks t JOIN jobs j ON j.id = t.job_id "
                        + "WHERE t.job_id = ? AND t.record_id = ? AND j.tenant = ?",
                    taskID, recordID, caller.partnerID
                ).map { row in Self.wire(try row.decode(Job.self), link: try row.decode(Link.self)) }
            })
        else { throw PlatformError.notFound("no task \(taskID) on record \(recordID)") }
        return task
    }

    /// Stops this process's decodes of deleted jobs at once (a worker elsewhere notices at its next heartbeat).
    func stopRunning(_ jobIDs: [String]) {
        for id in jobIDs { running.stop(id) }
    }

    /// The `jobs` columns ``Job`` decodes, qualified for the join.
    private static let jobColumns = [
        "id", "tenant", "subject", "kind", "payload", "state", "stage", "progress", "attempts", "max_attempts",
        "run_after", "lease_owner", "lease_expires_at", "heartbeat_at", "idempotency_key", "request_hash", "result",
        "error", "created_at", "updated_at", "started_at", "finished_at",
    ].map { "j." + $0 }.joined(separator: ", ")

    /// The `record_tasks` side of a task.
    struct Link: Sendable, Decodable {
        var recordID: String
        var taskType: Int
        var targetLanguage: String?
        var source: String?
        var model: String?

        enum CodingKeys: String, CodingKey {
            case source, model
            case recordID = "record_id"
            case taskType = "task_type"
            case targetLanguage = "target_language"
        }
    }

    static func wire(_ job: Job, link: Link) -> RecordTask {
        let status = TranscriptionService.status(job)
        return RecordTask(
            taskID: job.id, recordID: link.recordID, taskType: link.taskType, targetLanguage: link.targetLanguage,
            source: link.source, model: link.model, status: status,
            progress: status == .success ? 100 : Int((job.progress * 100).rounded()),
            error: status == .success ? nil : job.error, attempts: job.attempts, createdAtMs: job.createdAt,
            updatedAtMs: job.updatedAt, finishedAtMs: job.finishedAt)
    }

    // MARK: Results

    /// Copies a succeeded record task's result into its record (called by the queue inside the transaction that
    /// makes `job` final). A result older than one already applied for the same task type and language is kept
    /// in the history but does not replace the newer one.
    static func applyFinal(_ db: any SQLDatabase, _ job: Job) throws {
        guard job.state == .succeeded, let result = job.result,
            let link = try db.queryFirst(
                "SELECT record_id, task_type, target_language, source, model, created_at FROM record_tasks "
                    + "WHERE job_id = ?", job.id)
        else { return }
        let recordID = try link.decode("record_id", as: String.self)
        let taskType = try link.decode("task_type", as: Int.self)
        let target = try link.decode("target_language", as: String?.self)
        let createdAt = try link.decode("created_at", as: Int64.self)
        let newer =
            try db.query(
                "SELECT COUNT(*) FROM record_tasks t JOIN jobs j ON j.id = t.job_id WHERE t.record_id = ? "
                    + "AND t.task_type = ? AND t.target_language IS ? AND j.state = 'succeeded' AND j.id <> ? "
                    + "AND (t.created_at > ? OR (t.created_at = ? AND t.job_id > ?))",
                [
                    .text(recordID), .integer(Int64(taskType)), target.sqlValue, .text(job.id), .integer(createdAt),
                    .integer(createdAt), .text(job.id),
                ]
            ).first?.decode(0, as: Int.self) ?? 0
        guard newer == 0 else { return }
        let decoder = JSONDecoder()
        let at = job.finishedAt ?? job.updatedAt
        switch (taskType, try link.decode("source", as: String?.self)) {
        case (0, _):
            let transcript = try decoder.decode(Transcript.self, from: Data(result.utf8))
            try db.execute(
                "UPDATE records SET transcript = ?, language = ?, updated_at = ? WHERE id = ?", result,
                transcript.language, at, recordID)
            guard
                let row = try db.queryFirst("SELECT title, tags FROM records WHERE id = ?", recordID)
            else { return }
            let tags =
                (try? decoder.decode([String].self, from: Data(try row.decode("tags", as: String.self).utf8))) ?? []
            try RecordSearch.index(
                db, recordID: recordID, title: try row.decode("title"), tags: tags,
                sentences: transcript.segments.map { ($0.startMs, $0.text) })
        case (2, "speech"):
            let transcript = try decoder.decode(Transcript.self, from: Data(result.utf8))
            let translation = NoteTranslation(
                targetLanguage: "en",
                segments: transcript.segments.map {
                    NoteSegment(startMs: $0.startMs, endMs: $0.endMs, speaker: $0.speaker, text: $0.text)
                }, method: .speech, model: try link.decode("model", as: String?.self), detectedLanguage: nil,
                warnings: [])
            try setTranslation(db, recordID: recordID, translation, at: at)
        case (1, _):
            _ = try decoder.decode(NoteSummary.self, from: Data(result.utf8))
            try db.execute("UPDATE records SET summary = ?, updated_at = ? WHERE id = ?", result, at, recordID)
        default:
            try setTranslation(
                db, recordID: recordID, try decoder.decode(NoteTranslation.self, from: Data(result.utf8)), at: at)
        }
    }

    private static func setTranslation(
        _ db: any SQLDatabase, recordID: String, _ translation: NoteTranslation, at: Int64
    ) throws {
        try db.execute(
            "UPDATE records SET translations = json_set(translations, '$.' || ?, json(?)), updated_at = ? WHERE id = ?",
            translation.targetLanguage, try RecordsService.json(translation), at, recordID)
    }
}
