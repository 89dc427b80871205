import EarshotAPI
import EarshotCore
import EarshotCrypto
import EarshotDiarization
import EarshotHTTP
import EarshotModels
import EarshotSpeech
import EarshotStore
import Foundation
import Synchronization

/// Transcription tasks: create (idempotent), read, list, revoke and export, over the durable ``JobQueue``.
///
/// Every call needs a partner token and sees only its own tenant's tasks; another tenant's task id answers 404
/// exactly like a missing one. The audio must be a file uploaded to this server (a `DownloadUrl` or `FileId`):
/// the server never fetches a URL it did not issue. A task is a job of the file's record in the library: the
/// first task on a file makes its record (owned by the task's `user_id`, else the uploader), later ones join it,
/// and its transcript becomes the record's (docs/decisions/0005-one-library.md).
struct TranscriptionService: Sendable {

    let queue: JobQueue
    let metadata: any MetadataStore
    let links: PublicLinks
    let signer: URLSigner
    let running: RunningJobs
    /// Where webhooks may go: `callback_url` is checked in full at creation.
    let callbacks: CallbackPolicy
    let maxAttempts: Int
    /// The JSON of finished tasks, reused while they and their records are unchanged.
    let encoded = EncodedTasks()

    // MARK: Create

    /// Validates `request`, resolves its file in the caller's tenant and enqueues it as a job of the file's record
    /// (or returns the task already created with the same `Idempotency-Key` and body).
    func create(
        for caller: Principal, _ request: TranscriptionTaskRequest, idempotencyKey: String?
    ) async throws -> (task: TranscriptionTask, created: Bool) {
        let payload = try await validate(request, for: caller)
        if let idempotencyKey, idempotencyKey.isEmpty || idempotencyKey.count > 255 {
            throw PlatformError.invalidArgument("Idempotency-Key must be 1-255 characters")
        }
        let encoded = try Self.encoder.encode(payload)
        let new = NewJob(
            id: Identifier.make(prefix: "task"), tenant: caller.partnerID, subject: payload.userID,
            kind: TranscriptionJob.name, payload: String(decoding: encoded, as: UTF8.self), maxAttempts: maxAttempts,
            idempotencyKey: idempotencyKey, requestHash: DigestAlgorithm.sha256.hash(encoded).hex)
        let queue = self.queue
        let (job, recordID, created) = try await metadata.write { db in
            let (job, created) = try queue.insert(db, new)
            guard created else { return (job, try Library.record(ofJob: job.id, db)?.id, false) }
            guard let file = try UploadService.file(db, id: payload.fileID) else {
                throw PlatformError.notFound("no file \(payload.fileID); it was deleted")
            }
            let record =
                try Library.record(ofFile: file.id, db)
                ?? Library.insert(
                    db, .init(partnerID: caller.partnerID, userID: payload.userID ?? file.userID, file: file),
                    at: job.createdAt)
            try RecordTasks.link(
                db, jobID: job.id, recordID: record.id, plan: RecordTaskPlan(transcription: payload),
                at: job.createdAt)
            return (job, record.id, true)
        }
        if created { queue.signal.notify(TranscriptionJob.name) }
        return (try Self.wire(job, recordID: recordID), created)
    }

    /// Throws 400 naming the accepted tiers and aliases unless `model` names a tier (``ModelTier/named(_:)``).
    static func validateModel(_ model: String) throws {
        guard ModelTier.named(model) != nil else {
            throw PlatformError.invalidArgument(ModelTier.notOfferedMessage(model))
        }
    }

    private func validate(_ request: TranscriptionTaskRequest, for caller: Principal) async throws
        -> TranscriptionPayload
    {
        try Self.validateModel(request.model)
        let task = request.task ?? "transcribe"
        guard TranscriptionOptions.Task(rawValue: task) != nil else {
            throw PlatformError.invalidArgument("task \"\(task)\" is unknown; use transcribe or translate")
        }
        var language = request.language?.trimmingCharacters(in: .whitespaces).lowercased()
        if language == "" || language == "auto" { language = nil }
        if let language, !SpeechModel.isKnownLanguage(language) {
            throw PlatformError.invalidArgument(
                "language \"\(language)\" is unknown; use an ISO code such as en, zh, de, or omit it to detect it")
        }
        if let diarization = request.diarization { try Self.validate(diarization) }
        if let callback = request.callbackURL { _ = try callbacks.validate(callback) }
        if let userID = request.userID, userID.isEmpty || userID.count > 128 {
            throw PlatformError.invalidArgument("user_id must be 1-128 characters")
        }
        let fileID = try await fileID(from: request.fileURL)
        let exists = try await metadata.read { db in
            try db.queryFirst("SELECT id FROM files WHERE id = ? AND partner_id = ?", fileID, caller.partnerID) != nil
        }
        guard exists else {
            throw PlatformError.notFound("no file \(fileID); upload it first (complete-upload returns its DownloadUrl)")
        }
        return TranscriptionPayload(
            fileID: fileID, model: request.model, language: language, task: task, diarization: request.diarization,
            callbackURL: request.callbackURL, userID: request.userID)
    }

    /// The file id in `fileURL`: a bare `file_…` id, or a `DownloadUrl` this server issued — recognised by its
    /// base URL, or, when the base changed since (a restart on another port, a new `public-url`), by its valid
    /// signature. Anything else is refused without being fetched (no SSRF).
    func fileID(from fileURL: String) async throws -> String {
        if Identifier.isValid(fileURL, prefix: "file") { return fileURL }
        let ours = links.url("/open/partner/files/", query: "")
        let refused = PlatformError.invalidArgument(
            "file_url must be a DownloadUrl or FileId returned by complete-upload on this server (\(ours)…); "
                + "other URLs are never fetched")
        guard let components = URLComponents(string: fileURL), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { throw refused }
        guard components.path.hasPrefix(links.prefix),
            let parameters = SignedRoute.fileDownload.pattern.match(path: String(components.path.dropFirst(links.prefix.count))),
            let fileID = parameters["file_id"], Identifier.isValid(fileID, prefix: "file")
        else { throw refused }
        if !fileURL.hasPrefix(ours) {
            let query = QueryParameters((components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            do {
                try await signer.verify(.fileDownload, parameters: parameters, query: query)
            } catch {
                throw refused
            }
        }
        return fileID
    }

    // MARK: Read

    func task(for caller: Principal, id: String) async throws -> TranscriptionTask {
        let job = try await job(for: caller, id: id)
        let record = try await metadata.read { db in try Library.record(ofJob: id, db) }
        return try Self.wire(job, recordID: record?.id, names: record?.speakerNames ?? [:])
    }

    /// `GET` of a task as a response: the job and its record in one snapshot, the JSON reused while a finished
    /// task and its record are unchanged (``EncodedTasks``).
    func taskResponse(for caller: Principal, id: String) async throws -> Response {
        guard Identifier.isValid(id, prefix: "task") else { throw Self.notFound(id) }
        let tenant = caller.partnerID
        let (job, record) = try await metadata.read { db in
            (try JobQueue.job(db, id, tenant: tenant), try Library.recordNames(ofJob: id, db))
        }
        return try response(id: id, job, record)
    }

    /// ``taskResponse(for:id:)`` without suspending, for the route's inline attempt: nil when the store cannot
    /// read at once (then the async path answers the same).
    func taskResponseImmediately(for caller: Principal, id: String) throws -> Response? {
        guard Identifier.isValid(id, prefix: "task") else { throw Self.notFound(id) }
        let tenant = caller.partnerID
        guard
            let (job, record) = try metadata.readImmediately({ db in
                (try JobQueue.job(db, id, tenant: tenant), try Library.recordNames(ofJob: id, db))
            })
        else { return nil }
        return try response(id: id, job, record)
    }

    private func response(id: String, _ job: Job?, _ record: (id: String, speakerNames: String)?) throws -> Response {
        guard let job, job.kind == TranscriptionJob.name else { throw Self.notFound(id) }
        let key = EncodedTasks.Version(job: job, recordID: record?.id, speakerNames: record?.speakerNames)
        if let bytes = encoded.bytes(id, key) { return .json(encoded: bytes) }
        let names = record.map { SpeakerNames.decode($0.speakerNames) } ?? [:]
        let bytes = try Response.jsonBody(try Self.wire(job, recordID: record?.id, names: names))
        if job.state.isFinal { encoded.remember(id, key, bytes) }
        return .json(encoded: bytes)
    }

    // MARK: Speakers

    /// Renames speakers of a finished, diarized transcript (`names`: current label or name → new name) and returns
    /// the task as `GET` now shows it. The names belong to the task's record (``SpeakerNames``).
    func renameSpeakers(for caller: Principal, id: String, _ request: SpeakerRenameRequest) async throws
        -> TranscriptionTask
    {
        let job = try await job(for: caller, id: id)
        guard job.state == .succeeded, let transcript = try Self.transcript(job) else {
            throw PlatformError.conflict(
                "task \(id) is \(Self.status(job).rawValue); speakers can be renamed once it is SUCCESS")
        }
        try await metadata.write { db in
            guard let record = try Library.record(ofJob: id, db) else { throw Self.notFound(id) }
            let names = try SpeakerNames.merge(
                request.names, into: record.speakerNames, labels: SpeakerNames.labels(of: transcript),
                subject: "task \(id)")
            try Library.setSpeakerNames(db, recordID: record.id, names)
        }
        return try await task(for: caller, id: id)
    }

    func list(
        for caller: Principal, cursor: String?, limit: Int?, status: String?, userID: String?
    ) async throws -> TranscriptionTaskList {
        var after: JobPage.Cursor?
        if let cursor {
            guard let parsed = JobPage.Cursor(token: cursor), Identifier.isValid(parsed.id, prefix: "task") else {
                throw PlatformError.invalidArgument("cursor is malformed; pass next_cursor from the previous page")
            }
            after = parsed
        }
        let limit = limit ?? 50
        guard (1...200).contains(limit) else { throw PlatformError.invalidArgument("limit must be between 1 and 200") }
        var state: Job.State?
        switch status?.uppercased() {
        case nil: state = nil
        case "PENDING": state = .queued
        case "RUNNING", "RECEIVED", "STARTED", "PROGRESS": state = .running
        case "SUCCESS": state = .succeeded
        case "FAILURE": state = .failed
        case "REVOKED": state = .cancelled
        case let other?:
            throw PlatformError.invalidArgument(
                "status filter \"\(other)\" is unknown; use PENDING, RUNNING, SUCCESS, FAILURE or REVOKED")
        }
        let page = try await queue.list(
            tenant: caller.partnerID, kind: TranscriptionJob.name, subject: userID, state: state, after: after,
            limit: limit)
        let ids = page.jobs.map(\.id)
        let records = try await metadata.read { db in try Library.records(ofJobs: ids, db) }
        return TranscriptionTaskList(
            tasks: try page.jobs.map { try Self.wire($0, recordID: records[$0.id], segments: false) },
            nextCursor: page.next?.token)
    }

    // MARK: Revoke

    /// Cancels a queued or running task. A running decode stops within one decoder step.
    func revoke(for caller: Principal, id: String) async throws -> TranscriptionTask {
        guard Identifier.isValid(id, prefix: "task"),
            let job = try await queue.cancel(id, tenant: caller.partnerID, reason: "revoked by the partner"),
            job.kind == TranscriptionJob.name
        else { throw Self.notFound(id) }
        guard job.state == .cancelled else {
            throw PlatformError.conflict("task \(id) already finished (\(Self.status(job).rawValue))")
        }
        running.stop([id])
        return try await task(for: caller, id: id)
    }

    // MARK: Export

    /// The finished transcript as `format` (srt, vtt, txt, json, tsv).
    func export(for caller: Principal, id: String, format rawFormat: String?) async throws -> Response {
        let formatName = rawFormat?.lowercased() ?? "json"
        guard let format = TranscriptFormatter.Format(rawValue: formatName) else {
            throw PlatformError.invalidArgument("format \"\(formatName)\" is unknown; use srt, vtt, txt, json or tsv")
        }
        let job = try await job(for: caller, id: id)
        guard job.state == .succeeded, let transcript = try Self.transcript(job) else {
            throw PlatformError.conflict(
                "task \(id) is \(Self.status(job).rawValue); only SUCCESS tasks can be exported")
        }
        let names = try await metadata.read { db in try Library.record(ofJob: id, db)?.speakerNames } ?? [:]
        let named = SpeakerNames.apply(names, to: transcript)
        let body = TranscriptFormatter(format: format, includeWords: false).string(for: named)
        return Response(
            status: .ok,
            headers: [
                "Content-Type": Self.contentType(format),
                "Content-Disposition": "attachment; filename=\"\(id).\(format.fileExtension)\"",
            ],
            body: .bytes(Array(body.utf8)))
    }

    static func contentType(_ format: TranscriptFormatter.Format) -> String {
        switch format {
        case .srt: "application/x-subrip; charset=utf-8"
        case .vtt: "text/vtt; charset=utf-8"
        case .txt: "text/plain; charset=utf-8"
        case .tsv: "text/tab-separated-values; charset=utf-8"
        case .json: "application/json"
        }
    }

    // MARK: Helpers

    func job(for caller: Principal, id: String) async throws -> Job {
        guard Identifier.isValid(id, prefix: "task"), let job = try await queue.job(id, tenant: caller.partnerID),
            job.kind == TranscriptionJob.name
        else { throw Self.notFound(id) }
        return job
    }

    /// Refuses a `diarization` option the diarizer cannot honour (bad counts, min above max), naming the field.
    static func validate(_ diarization: TranscriptionTaskRequest.Diarization) throws {
        do {
            _ = try attributionOptions(diarization).diarizerConfiguration()
        } catch {
            throw PlatformError.invalidArgument("diarization: \(error.message)")
        }
    }

    /// The speaker-attribution options a task's `diarization` asks for.
    static func attributionOptions(_ diarization: TranscriptionTaskRequest.Diarization) -> SpeakerAttribution.Options {
        var options = SpeakerAttribution.Options(
            speakers: diarization.speakers, minSpeakers: diarization.minSpeakers, maxSpeakers: diarization.maxSpeakers)
        if let template = diarization.labelTemplate { options.labelTemplate = template }
        return options
    }

    static func notFound(_ id: String) -> PlatformError { .notFound("no transcription task \(id)") }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func status(_ job: Job) -> TaskStatus {
        switch job.state {
        case .queued: .pending
        case .running: job.stage.flatMap(TaskStatus.init(rawValue:)) ?? .received
        case .succeeded: .success
        case .failed: .failure
        case .cancelled: .revoked
        }
    }

    static func payload(_ job: Job) throws -> TranscriptionPayload {
        try JSONDecoder().decode(TranscriptionPayload.self, from: Data(job.payload.utf8))
    }

    static func transcript(_ job: Job) throws -> Transcript? {
        guard let result = job.result else { return nil }
        return try JSONDecoder().decode(Transcript.self, from: Data(result.utf8))
    }

    /// The wire form of a transcription job (speakers shown with their record's `names`).
    static func wire(
        _ job: Job, recordID: String?, names: [String: String] = [:], segments includeSegments: Bool = true
    ) throws -> TranscriptionTask {
        let payload = try payload(job)
        let transcript = try job.state == .succeeded ? transcript(job).map { SpeakerNames.apply(names, to: $0) } : nil
        let status = status(job)
        let (code, message) = status == .success ? (nil, nil) : TaskFailure.split(job.error)
        return TranscriptionTask(
            taskID: job.id, status: status, progress: status == .success ? 100 : Int((job.progress * 100).rounded()),
            model: payload.model, language: transcript?.language ?? payload.language,
            durationMs: transcript?.durationMs,
            segments: includeSegments
                ? transcript?.segments.map {
                    TranscriptSegment(speaker: $0.speaker, startMs: $0.startMs, endMs: $0.endMs, text: $0.text)
                } : nil,
            error: message, errorCode: status == .failure ? code : nil, fileID: payload.fileID,
            userID: payload.userID,
            recordID: recordID, warnings: transcript.flatMap { $0.warnings.isEmpty ? nil : $0.warnings },
            attempts: job.attempts, createdAtMs: job.createdAt, updatedAtMs: job.updatedAt,
            finishedAtMs: job.finishedAt)
    }
}

/// The encoded `GET` body of finished tasks, by task id, valid for one version of the job and its record (a
/// finished task changes only when its record's speaker names do). Reading the rows is still done on every
/// request, so tenancy and deletion are checked as before; only decoding the transcript and encoding it again
/// is saved. Bounded; when full it starts over.
final class EncodedTasks: Sendable {
    struct Version: Sendable, Equatable {
        let updatedAt: Int64
        let finishedAt: Int64?
        let attempts: Int
        let recordID: String?
        let speakerNames: String?

        init(job: Job, recordID: String?, speakerNames: String?) {
            updatedAt = job.updatedAt
            finishedAt = job.finishedAt
            attempts = job.attempts
            self.recordID = recordID
            self.speakerNames = speakerNames
        }
    }

    static let capacity = 1024
    private let entries = Mutex<[String: (version: Version, bytes: [UInt8])]>([:])

    func bytes(_ id: String, _ version: Version) -> [UInt8]? {
        entries.withLock { entries in entries[id].flatMap { $0.version == version ? $0.bytes : nil } }
    }

    func remember(_ id: String, _ version: Version, _ bytes: [UInt8]) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[id] = (version, bytes)
        }
    }
}
