import EarshotAudio
import EarshotCore
import EarshotSpeech
import EarshotStore
import Foundation

/// The records library at the level of rows: the one place every door that brings audio in makes its record —
/// a record created through the API, a transcription task on an uploaded file (seed 001), a kept
/// OpenAI-compatible request, and later device syncs and live sessions — and the one place a record is deleted
/// with everything that belongs to it. Every function runs inside the caller's transaction; callers check who
/// may do what (see ``RecordsService``). The data model is docs/decisions/0005-one-library.md.
enum Library {
    /// A record about to be made from a stored file.
    struct NewRecord: Sendable {
        /// nil for a new id; a live session's record has the id its client was told up-front.
        var id: String?
        var partnerID: String
        /// The owning user; nil for a partner-owned record.
        var userID: String?
        var file: FileRecord
        /// nil for the file's original name (without its extension), or "Recording <date time>".
        var title: String?
        var tags: [String] = []
        /// When it was recorded (Unix ms); nil for when the file was stored.
        var recordTime: Int64?
        var language: String?
        var source = "import"
        /// 0 until measured (a transcription job measures the audio it decodes).
        var durationMs = 0
        var envelope: [UInt8]?
    }

    /// Inserts a record with its search rows and returns it.
    @discardableResult
    static func insert(_ db: any SQLDatabase, _ new: NewRecord, at: Int64) throws -> RecordRow {
        let recordTime = new.recordTime ?? new.file.createdAt
        let title = new.title ?? defaultTitle(file: new.file, recordTime: recordTime)
        let row = try db.query(
            "INSERT INTO records (id, partner_id, user_id, file_id, title, tags, record_time, duration_ms, language, "
                + "source, envelope, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                + "RETURNING \(RecordRow.columns)",
            [
                .text(new.id ?? Identifier.make(prefix: "rec")), .text(new.partnerID), new.userID.sqlValue, .text(new.file.id),
                .text(title), .text(try RecordsService.json(new.tags)), .integer(recordTime),
                .integer(Int64(new.durationMs)), new.language.sqlValue, .text(new.source),
                new.envelope.map { .blob($0) } ?? .null, .integer(at), .integer(at),
            ]
        ).first!.decode(RecordRow.self)
        try RecordSearch.index(db, recordID: row.id, title: title, tags: new.tags, sentences: [])
        return row
    }

    /// The record whose audio is `fileID`, if the file has one.
    static func record(ofFile fileID: String, _ db: any SQLDatabase) throws -> RecordRow? {
        try db.queryFirst("SELECT \(RecordRow.columns) FROM records WHERE file_id = ?", fileID)
            .map { try $0.decode(RecordRow.self) }
    }

    /// The record `jobID` is a job of, if any.
    static func record(ofJob jobID: String, _ db: any SQLDatabase) throws -> RecordRow? {
        try db.queryFirst(
            "SELECT \(RecordRow.columns) FROM records WHERE id = (SELECT record_id FROM record_tasks WHERE job_id = ?)",
            jobID
        ).map { try $0.decode(RecordRow.self) }
    }

    /// The id and speaker names (JSON) of the record of job `jobID`, without its large columns (task status reads).
    static func recordNames(ofJob jobID: String, _ db: any SQLDatabase) throws -> (id: String, speakerNames: String)? {
        try db.queryFirst(
            "SELECT id, speaker_names FROM records WHERE id = (SELECT record_id FROM record_tasks WHERE job_id = ?)",
            jobID
        ).map { (try $0.decode("id", as: String.self), try $0.decode("speaker_names", as: String.self)) }
    }

    /// The record of each of `jobIDs` that has one: job id → record id.
    static func records(ofJobs jobIDs: [String], _ db: any SQLDatabase) throws -> [String: String] {
        var records: [String: String] = [:]
        for id in jobIDs {
            if let record = try db.scalar("SELECT record_id FROM record_tasks WHERE job_id = ?", id, as: String.self) {
                records[id] = record
            }
        }
        return records
    }

    /// Stores the speaker names of `recordID` (see ``SpeakerNames``).
    static func setSpeakerNames(_ db: any SQLDatabase, recordID: String, _ names: [String: String]) throws {
        try db.execute(
            "UPDATE records SET speaker_names = ?, updated_at = ? WHERE id = ?", try RecordsService.json(names),
            JobQueue.wallClock(), recordID)
    }

    /// Sets the duration and amplitude envelope of `recordID`, built while its audio was decoded in windows, unless
    /// it has them already.
    static func measure(
        _ db: any SQLDatabase, recordID: String, durationMs: Int, envelope: [UInt8], at: Int64
    ) throws {
        try db.execute(
            "UPDATE records SET duration_ms = ?, envelope = ?, updated_at = ? WHERE id = ? AND envelope IS NULL",
            [.integer(Int64(durationMs)), .blob(envelope), .integer(at), .text(recordID)])
    }

    /// Decodes a stored file once, in chunks: its amplitude envelope (quantised) and duration.
    ///
    /// - Throws: `AudioError` when it is not audio Earshot can decode; the blob store's errors.
    static func decodeMeasurement(
        of blobKey: BlobKey, in blobs: any BlobStore
    ) async throws -> (envelope: [UInt8], durationMs: Int) {
        try await blobs.withLocalFile(for: blobKey) { path in
            let decoder = try await AudioDecoder.open(contentsOf: path, configuration: .init(allowTruncated: true))
            var builder = EnvelopeBuilder()
            var samples = 0
            for try await chunk in decoder.chunks() {
                builder.append(chunk)
                samples += chunk.count
            }
            return (builder.finish().encoded(), samples * 1000 / AudioDecoder.sampleRate)
        }
    }

    /// Sets the duration and amplitude envelope of `recordID` from its decoded audio, unless it has them already.
    static func measure(_ db: any SQLDatabase, recordID: String, samples: [Float], at: Int64) throws {
        var builder = EnvelopeBuilder()
        builder.append(samples)
        try measure(
            db, recordID: recordID, durationMs: samples.count * 1000 / AudioDecoder.sampleRate,
            envelope: builder.finish().encoded(), at: at)
    }

    /// Deletes `record` and every copy of its content: its jobs (running ones lose their lease; what refers to
    /// them, such as webhook deliveries, goes with them), its search rows, the voiceprints enrolled from its audio,
    /// its file's rows, and the device recording it was made from (the registry forgets it). Returns the jobs
    /// deleted (to stop those running here) and the blob to delete once the transaction has committed.
    static func delete(
        _ db: any SQLDatabase, _ record: RecordRow, queue: JobQueue
    ) throws -> (jobs: [String], blob: BlobKey?) {
        let jobs = try db.query("SELECT job_id FROM record_tasks WHERE record_id = ?", record.id).map {
            try $0.decode("job_id", as: String.self)
        }
        try db.execute("DELETE FROM record_tasks WHERE record_id = ?", record.id)
        try queue.delete(db, ids: jobs)
        try RecordSearch.remove(db, recordID: record.id)
        try db.execute("DELETE FROM records WHERE id = ?", record.id)
        try VoiceprintService.forget(db, fileID: record.fileID)
        try DeviceRegistry.forget(db, recordID: record.id)
        return (jobs, try UploadService.deleteFile(db, id: record.fileID))
    }

    /// The file's original name without its extension, or `Recording 2026-12-01 08:30` (UTC) for `recordTime`
    /// (`Live 2026-12-01 08:30` with `prefix: "Live"`).
    static func defaultTitle(file: FileRecord?, recordTime: Int64, prefix: String = "Recording") -> String {
        if let name = file?.originalName {
            let stem = (name as NSString).deletingPathExtension.trimmingCharacters(in: .whitespaces)
            if !stem.isEmpty { return String(stem.prefix(RecordsService.maxTitleLength)) }
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return prefix + " " + formatter.string(from: Date(timeIntervalSince1970: Double(recordTime) / 1000))
    }
}
