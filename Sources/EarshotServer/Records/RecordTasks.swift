import EarshotAPI
import EarshotCore
import EarshotCrypto
import EarshotModels
import EarshotNotes
import EarshotSpeech
import EarshotStore
import Foundation

/// What a record task does: a request parsed and validated once, so creating its job is one `switch`.
enum RecordTaskPlan: Sendable, Hashable {
    /// Task 0: transcribe the audio (optionally with speakers).
    case transcribe(model: String, diarization: TranscriptionTaskRequest.Diarization?)
    /// Task 2 with `source: "speech"`: Whisper's translation of the audio to English.
    case translateSpeech(model: String)
    /// Task 1: summarize the transcript.
    case summarize
    /// Task 2 (default source `transcript`): translate the transcript with the language model.
    case translateTranscript(target: String)

    /// The target languages offered for translation (the seed's 14).
    static let languages = ["zh", "en", "ja", "ko", "fr", "de", "es", "ru", "it", "pt", "th", "vi", "ar", "hi"]

    /// Parses `request`, naming the first field that is wrong and how to fix it.
    init(_ request: RecordTaskRequest) throws {
        let target = request.targetLanguage?.trimmingCharacters(in: .whitespaces).lowercased()
        if request.diarization != nil && request.taskType != 0 {
            throw PlatformError.invalidArgument("diarization only applies to task_type 0 (transcribe)")
        }
        if request.taskType != 2 {
            if target != nil {
                throw PlatformError.invalidArgument("target_language only applies to task_type 2 (translate)")
            }
            if request.source != nil {
                throw PlatformError.invalidArgument("source only applies to task_type 2 (translate)")
            }
        }
        switch request.taskType {
        case 0:
            if let diarization = request.diarization { try TranscriptionService.validate(diarization) }
            self = .transcribe(model: try Self.speechModel(request.model), diarization: request.diarization)
        case 1:
            try Self.refuseModel(request.model)
            self = .summarize
        case 2:
            guard let target else {
                throw PlatformError.invalidArgument(
                    "target_language is required for task_type 2: one of \(Self.languages.joined(separator: ", "))")
            }
            guard Self.languages.contains(target) else {
                throw PlatformError.invalidArgument(
                    "target_language \"\(target.prefix(16))\" is not offered; use one of "
                        + Self.languages.joined(separator: ", "))
            }
            switch request.source ?? "transcript" {
            case "transcript":
                try Self.refuseModel(request.model)
                self = .translateTranscript(target: target)
            case "speech":
                guard target == "en" else {
                    throw PlatformError.invalidArgument(
                        "speech translation (Whisper) only produces English; use target_language en, or source "
                            + "transcript for \(target)")
                }
                self = .translateSpeech(model: try Self.speechModel(request.model))
            case let other:
                throw PlatformError.invalidArgument(
                    "source \"\(other.prefix(32))\" is unknown; use transcript (language model) or speech")
            }
        default:
            throw PlatformError.invalidArgument(
                "task_type \(request.taskType) is unknown; use 0 (transcribe), 1 (summarize) or 2 (translate)")
        }
    }

    private static func speechModel(_ model: String?) throws -> String {
        let model = model ?? "asr-fast"
        try TranscriptionService.validateModel(model)
        return model
    }

    private static func refuseModel(_ model: String?) throws {
        if model != nil {
            throw PlatformError.invalidArgument(
                "model selects the speech tier (asr-fast, asr-pro) of task_type 0 and speech translation; the "
                    + "summarizer's model is configured on the server")
        }
    }

    /// The plan of a transcription task's request (`task`: transcribe or translate).
    init(transcription payload: TranscriptionPayload) {
        self =
            payload.task == "translate"
            ? .translateSpeech(model: payload.model) : .transcribe(model: payload.model, diarization: payload.diarization)
    }

    /// The wire's `task_type`.
    var taskType: Int {
        switch self {
        case .transcribe: 0
        case .summarize: 1
        case .translateSpeech, .translateTranscript: 2
        }
    }

    var targetLanguage: String? {
        switch self {
        case .translateSpeech: "en"
        case .translateTranscript(let target): target
        case .transcribe, .summarize: nil
        }
    }

    /// `speech` or `transcript` for translations.
    var source: String? {
        switch self {
        case .translateSpeech: "speech"
        case .translateTranscript: "transcript"
        case .transcribe, .summarize: nil
        }
    }

    /// The speech tier, for tasks that decode audio.
    var model: String? {
        switch self {
        case .transcribe(let model, _), .translateSpeech(let model): model
        case .summarize, .translateTranscript: nil
        }
    }
}

/// Offline tasks on a record (`task_type` 0 transcribe, 1 summarize, 2 translate): the jobs of a record.
///
/// Every job of a record is linked to it by a `record_tasks` row, which is the record's task history: the
/// transcription tasks of seed 001 (``TranscriptionService``), and the tasks created here. Transcription (0) and
/// speech translation (2, `source: "speech"`) are ``TranscriptionJob``s; summaries (1) and transcript translations
/// (2) are ``RecordNoteJob``s. When a job succeeds, ``applyFinal(_:_:)`` — called by the queue in the transaction
/// that makes the job final — copies its result into the record, replacing the previous transcript, summary or
/// translation (the history keeps every version).
struct RecordTasks: Sendable {
    let queue: JobQueue
    let metadata: any MetadataStore
    let maxAttempts: Int

    /// What a ``RecordNoteJob`` carries.
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
        let plan = try RecordTaskPlan(request)
        let kind: String
        let payload: String
        switch plan {
        case .transcribe, .translateSpeech:
            kind = TranscriptionJob.name
            payload = try RecordsService.json(
                TranscriptionPayload(
                    fileID: record.fileID, model: plan.model!, language: plan.taskType == 0 ? record.language : nil,
                    task: plan.taskType == 0 ? "transcribe" : "translate",
                    diarization: { if case .transcribe(_, let diarization) = plan { diarization } else { nil } }(),
                    callbackURL: nil, userID: record.userID))
        case .summarize, .translateTranscript:
            guard record.transcriptJSON != nil else {
                throw PlatformError.conflict(
                    "record \(record.id) has no transcript yet; run task_type 0 (transcribe) first")
            }
            kind = RecordNoteJob.name
            payload = try RecordsService.json(
                NotePayload(recordID: record.id, taskType: plan.taskType, targetLanguage: plan.targetLanguage))
        }
        let new = NewJob(
            id: Identifier.make(prefix: "task"), tenant: record.partnerID, subject: record.userID, kind: kind,
            payload: payload, maxAttempts: maxAttempts,
            requestHash: DigestAlgorithm.sha256.hash(Array(payload.utf8)).hex)
        let (queue, recordID) = (self.queue, record.id)
        let job = try await metadata.write { db in
            let job = try queue.insert(db, new).job
            try Self.link(db, jobID: job.id, recordID: recordID, plan: plan, at: job.createdAt)
            return job
        }
        queue.signal.notify(kind)
        return Self.wire(
            job,
            link: Link(
                recordID: record.id, taskType: plan.taskType, targetLanguage: plan.targetLanguage, source: plan.source,
                model: plan.model))
    }

    /// Makes `jobID` a job of `recordID` (inside the caller's transaction, with the job).
    static func link(_ db: any SQLDatabase, jobID: String, recordID: String, plan: RecordTaskPlan, at: Int64) throws {
        try db.execute(
            "INSERT INTO record_tasks (job_id, record_id, task_type, target_language, source, model, created_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?)",
            jobID, recordID, plan.taskType, plan.targetLanguage, plan.source, plan.model, at)
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

    /// The `jobs` columns ``Job`` decodes, qualified for the join.
    private static let jobColumns = Job.columns(of: "j")

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
        let (code, message) = status == .success ? (nil, nil) : TaskFailure.split(job.error)
        let warnings = status == .success ? Self.warnings(of: job, link: link) : []
        return RecordTask(
            taskID: job.id, recordID: link.recordID, taskType: link.taskType, targetLanguage: link.targetLanguage,
            source: link.source, model: link.model, status: status,
            progress: status == .success ? 100 : Int((job.progress * 100).rounded()), error: message,
            errorCode: status == .failure ? code : nil, warnings: warnings.isEmpty ? nil : warnings,
            attempts: job.attempts, createdAtMs: job.createdAt, updatedAtMs: job.updatedAt,
            finishedAtMs: job.finishedAt)
    }

    /// The warnings a succeeded task's result carries (transcript, summary or translation).
    static func warnings(of job: Job, link: Link) -> [String] {
        guard let result = job.result.map({ Data($0.utf8) }) else { return [] }
        let decoder = JSONDecoder()
        switch (link.taskType, link.source) {
        case (0, _), (2, "speech"): return (try? decoder.decode(Transcript.self, from: result))?.warnings ?? []
        case (1, _): return (try? decoder.decode(NoteSummary.self, from: result))?.warnings ?? []
        default: return (try? decoder.decode(NoteTranslation.self, from: result))?.warnings ?? []
        }
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
                    + "AND t.task_type = ? AND t.target_language "
                    + (db.dialect == .postgresql ? "IS NOT DISTINCT FROM ? " : "IS ? ")
                    + "AND j.state = 'succeeded' AND j.id <> ? "
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
            // A device recording whose device asked for a summary gets it now that the words are in.
            try DeviceRegistry.transcribed(db, recordID: recordID, job: job)
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
                warnings: transcript.warnings)
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
        let set =
            db.dialect == .postgresql
            ? "(jsonb_set(translations::jsonb, ARRAY[?::text], ?::jsonb))::text"
            : "json_set(translations, '$.' || ?, json(?))"
        try db.execute(
            "UPDATE records SET translations = \(set), updated_at = ? WHERE id = ?",
            translation.targetLanguage, try RecordsService.json(translation), at, recordID)
    }
}
