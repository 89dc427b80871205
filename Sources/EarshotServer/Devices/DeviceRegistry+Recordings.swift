import EarshotAPI
import EarshotCore
import EarshotCrypto
import EarshotStore
import Foundation

/// Device recordings: a synced recording becomes a record of the device's user exactly once, after its digest was
/// checked end to end, and gets the device's automatic tasks. The app acknowledges a recording to the device (which
/// then frees it) only after ``store(for:serial:_:)`` answered.
extension DeviceRegistry {
    /// The speech tier of automatic transcriptions unless the device or its user chose another.
    static let autoModel = "asr-fast"

    /// Stores a synced recording: checks that the uploaded file's SHA-256 is the device's, makes it a record
    /// (`source: device:<serial>`, recorded at `started_at_ms`) and starts the automatic tasks, all once per
    /// (device, user, recording id). Returns the stored recording and whether it was stored now.
    ///
    /// - Throws: `INVALID_ARGUMENT` naming both digests when they differ (nothing stored); `CONFLICT` when this
    ///   recording id was already stored with another digest, or the file already belongs to another record.
    func store(
        for caller: Principal, serial: String, _ request: DeviceRecordingRequest
    ) async throws -> (recording: DeviceRecording, created: Bool) {
        let device = try await row(for: caller, serial: serial)
        guard device.isBound else {
            throw PlatformError.conflict(
                "device \(device.serial) is not bound yet: PUT the secret it answered to bind first")
        }
        let recordingID = try Self.recordingID(request.recordingID)
        let sha256 = request.sha256.lowercased()
        guard sha256.utf8.count == 64, Digest(hex: sha256) != nil else {
            throw PlatformError.invalidArgument("sha256 must be the recording's SHA-256 as 64 hex digits")
        }
        _ = try Self.filetype(ofCodec: request.codec)
        guard (0...32_503_680_000_000).contains(request.startedAtMs) else {
            throw PlatformError.invalidArgument("started_at_ms must be Unix milliseconds between 1970 and 3000")
        }
        guard request.durationMs >= 0, request.size >= 0 else {
            throw PlatformError.invalidArgument("duration_ms and size must not be negative")
        }
        if let stored = try await metadata.read({ db in try Self.stored(db, device, recordingID) }) {
            return (try Self.same(stored, sha256: sha256, serial: device.serial), false)
        }
        guard Identifier.isValid(request.fileID, prefix: "file"),
            let file = try await metadata.read({ db in
                try db.queryFirst(
                    "SELECT \(FileRecord.columns) FROM files WHERE id = ? AND partner_id = ? "
                        + "AND (user_id = ? OR (user_id IS NULL AND ? = 1))",
                    request.fileID, device.partnerID, device.userID, caller.isPartner
                ).map { try $0.decode(FileRecord.self) }
            })
        else {
            throw PlatformError.notFound(
                "no file \(request.fileID.prefix(64)) of the device's user; upload the recording first "
                    + "(complete-upload returns its FileId)")
        }
        guard file.sha256 == sha256 else {
            throw PlatformError.invalidArgument(
                "file \(file.id) has SHA-256 \(file.sha256), but recording \(recordingID) of device "
                    + "\(device.serial) has \(sha256): the upload is not the recording, so nothing was stored and "
                    + "the device must not free it; read it from the device and upload it again")
        }
        // The recording is not decoded here: its transcription measures it (it decodes it anyway), else a
        // `record-measure` job does. Until then the record's duration is the device's. Decoding it inside the
        // registration cost more than the rest of a Wi-Fi handover, and seconds per recording of an hour
        // (docs/devices.md).
        let durationMs = Int(clamping: request.durationMs)
        let at = now()
        let (queue, maxAttempts) = (records.tasks.queue, records.tasks.maxAttempts)
        let (transcribe, summarize) = (device.autoTranscribe, device.autoTranscribe && device.autoSummarize)
        // The device's own language and speech tier, else its user's defaults (`auto`: detect the language).
        let language = device.language == "auto" ? nil : device.language
        let model = device.transcriptionModel
        let result = try await metadata.write { db -> (DeviceRecording, String?, Bool) in
            // Another request may have stored it meanwhile (the app retried): answer what is stored.
            if let stored = try Self.stored(db, device, recordingID) {
                return (try Self.same(stored, sha256: sha256, serial: device.serial), nil, false)
            }
            if let other = try Library.record(ofFile: file.id, db) {
                throw PlatformError.conflict(
                    "file \(file.id) already has a record (\(other.id)); upload the recording again for its own file")
            }
            let record = try Library.insert(
                db,
                .init(
                    partnerID: device.partnerID, userID: device.userID, file: file,
                    title: Library.defaultTitle(file: nil, recordTime: request.startedAtMs),
                    recordTime: request.startedAtMs, language: language, source: "device:\(device.serial)",
                    durationMs: durationMs, envelope: nil), at: at)
            var jobID: String?
            if transcribe {
                let payload = try RecordsService.json(
                    TranscriptionPayload(
                        fileID: file.id, model: model, language: language, task: "transcribe", diarization: nil,
                        callbackURL: nil, userID: device.userID))
                let job = try queue.insert(
                    db,
                    NewJob(
                        id: Identifier.make(prefix: "task"), tenant: device.partnerID, subject: device.userID,
                        kind: TranscriptionJob.name, payload: payload, maxAttempts: maxAttempts,
                        requestHash: DigestAlgorithm.sha256.hash(Array(payload.utf8)).hex)
                ).job
                try RecordTasks.link(
                    db, jobID: job.id, recordID: record.id,
                    plan: .transcribe(model: model, diarization: nil), at: job.createdAt)
                jobID = job.id
            } else {
                try RecordMeasureJob.enqueue(
                    db, recordID: record.id, tenant: device.partnerID, maxAttempts: maxAttempts)
            }
            try db.execute(
                "INSERT INTO device_recordings (serial, partner_id, user_id, recording_id, sha256, record_id, "
                    + "summarize, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                device.serial, device.partnerID, device.userID, recordingID, sha256, record.id, summarize, at)
            return (
                DeviceRecording(recordingID: recordingID, sha256: sha256, recordID: record.id, storedAtMs: at), jobID,
                true
            )
        }
        if let jobID = result.1 {
            queue.signal.notify(TranscriptionJob.name)
            logger.info(
                "device recording stored",
                metadata: [
                    "serial": device.serial, "recording": "\(recordingID)", "record": result.0.recordID,
                    "task": jobID,
                ])
        } else if result.2 {
            queue.signal.notify(RecordMeasureJob.name)
            logger.info(
                "device recording stored",
                metadata: ["serial": device.serial, "recording": "\(recordingID)", "record": result.0.recordID])
        }
        return (result.0, result.2)
    }

    /// The recordings of the device the server holds for its user, oldest device id first, after `after`.
    func recordings(for caller: Principal, serial: String, after: Int64?, limit: Int?) async throws
        -> DeviceRecordingList
    {
        let device = try await row(for: caller, serial: serial)
        let limit = try RecordsService.limit(limit, default: 100, max: 1000)
        if let after, after < 0 {
            throw PlatformError.invalidArgument("after must be a device recording id (0 or more)")
        }
        let after = after ?? -1
        let rows = try await metadata.read { db in
            try db.query(
                "SELECT \(DeviceRecordingRow.columns) FROM device_recordings WHERE serial = ? AND partner_id = ? "
                    + "AND user_id = ? AND recording_id > ? ORDER BY recording_id LIMIT ?",
                [
                    .text(device.serial), .text(device.partnerID), .text(device.userID), .integer(after),
                    .integer(Int64(limit + 1)),
                ]
            ).map { try $0.decode(DeviceRecordingRow.self) }
        }
        return DeviceRecordingList(recordings: rows.prefix(limit).map(\.wire), more: rows.count > limit)
    }

    /// A presigned multipart plan for the device to upload one recording itself over Wi-Fi, owned by the device's
    /// user (its `FileId` is then sent to ``store(for:serial:_:)`` like any upload's).
    ///
    /// - Throws: `DEVICE_OFFLINE` when the device has not reported within the online window; `CONFLICT` when the
    ///   server already holds the recording.
    func uploadPlan(
        for caller: Principal, serial: String, _ request: DeviceUploadPlanRequest
    ) async throws -> UploadPlan {
        try await uploadPlans(for: caller, serial: serial, [request], limit: 1)[0].plan
    }

    /// The plans of several recordings in one call (the device gets them in one `upload batch`): every request is
    /// checked before any upload is planned, so a refused batch plans nothing.
    ///
    /// - Throws: `INVALID_ARGUMENT` for no recordings, more than `limit`, one named twice, or a bad size or codec;
    ///   `DEVICE_OFFLINE` and `CONFLICT` as ``uploadPlan(for:serial:_:)``.
    func uploadPlans(
        for caller: Principal, serial: String, _ requests: [DeviceUploadPlanRequest],
        limit: Int = DeviceUploadPlansRequest.limit
    ) async throws -> [DeviceUploadPlans.Entry] {
        let device = try await row(for: caller, serial: serial)
        guard device.isBound else {
            throw PlatformError.conflict(
                "device \(device.serial) is not bound yet: PUT the secret it answered to bind first")
        }
        guard !requests.isEmpty, requests.count <= limit else {
            throw PlatformError.invalidArgument(
                "recordings has \(requests.count) entries; ask for 1 to \(limit) plans per call")
        }
        var checked: [(recordingID: Int64, size: Int, filetype: String)] = []
        for request in requests {
            let recordingID = try Self.recordingID(request.recordingID)
            guard !checked.contains(where: { $0.recordingID == recordingID }) else {
                throw PlatformError.invalidArgument("recording \(recordingID) is named twice; ask once per recording")
            }
            let filetype = try Self.filetype(ofCodec: request.codec)
            guard request.size >= 1, request.size <= Int64(Int.max) else {
                throw PlatformError.invalidArgument("size must be the recording's size in bytes (at least 1)")
            }
            checked.append((recordingID, Int(request.size), filetype))
        }
        guard device.isOnline(now: now(), window: windowMs) else {
            throw PlatformError.deviceOffline(
                "device \(device.serial) has not reported in the last \(windowMs / 1000) s; connect to it and "
                    + "POST its status first, then ask for the plan")
        }
        let ids = checked.map(\.recordingID)
        let held = try await metadata.read { db in
            try ids.compactMap { id in try Self.stored(db, device, id) }
        }
        if let stored = held.first {
            throw PlatformError.conflict(
                "recording \(stored.recordingID) of device \(device.serial) is already stored (record "
                    + "\(stored.recordID)); acknowledge it to the device with SHA-256 \(stored.sha256)")
        }
        let owner = Principal(
            partnerID: device.partnerID, userID: device.userID, scopes: [Scope.filesWrite.rawValue],
            tokenID: caller.tokenID, generation: caller.generation)
        var plans: [DeviceUploadPlans.Entry] = []
        for entry in checked {
            plans.append(
                DeviceUploadPlans.Entry(
                    recordingID: entry.recordingID,
                    plan: try await records.uploads.plan(
                        for: owner, filesize: entry.size, filetype: entry.filetype,
                        filename: "\(device.serial)-\(entry.recordingID).\(entry.filetype)")))
        }
        return plans
    }

    // MARK: Automatic summary

    /// Called in the transaction that stores a record's transcript (``RecordTasks/applyFinal(_:_:)``): when the
    /// record is a device recording whose device asked for a summary, adds the summary task once.
    static func transcribed(_ db: any SQLDatabase, recordID: String, job: Job, maxAttempts: Int = 3) throws {
        guard
            let row = try db.queryFirst(
                "SELECT partner_id, user_id FROM device_recordings WHERE record_id = ? AND summarize = 1", recordID)
        else { return }
        try db.execute("UPDATE device_recordings SET summarize = 0 WHERE record_id = ?", recordID)
        let userID = try row.decode("user_id", as: String.self)
        let payload = try RecordsService.json(
            RecordTasks.NotePayload(recordID: recordID, taskType: 1, targetLanguage: nil))
        let at = job.finishedAt ?? job.updatedAt
        let summary = try JobQueue.insert(
            db,
            NewJob(
                id: Identifier.make(prefix: "task"), tenant: try row.decode("partner_id"), subject: userID,
                kind: RecordNoteJob.name, payload: payload, maxAttempts: maxAttempts,
                requestHash: DigestAlgorithm.sha256.hash(Array(payload.utf8)).hex),
            at: at
        ).job
        try RecordTasks.link(db, jobID: summary.id, recordID: recordID, plan: .summarize, at: at)
    }

    // MARK: Deleted records

    /// Called in the transaction that deletes a record (``Library/delete(_:_:queue:)``): the registry forgets the
    /// device recording the record was made from, so that syncing the same recording again makes a new record
    /// instead of answering with the deleted one.
    static func forget(_ db: any SQLDatabase, recordID: String) throws {
        try db.execute("DELETE FROM device_recordings WHERE record_id = ?", recordID)
    }

    // MARK: Helpers

    static func stored(_ db: any SQLDatabase, _ device: DeviceRow, _ recordingID: Int64) throws -> DeviceRecordingRow? {
        try db.queryFirst(
            "SELECT \(DeviceRecordingRow.columns) FROM device_recordings WHERE serial = ? AND partner_id = ? "
                + "AND user_id = ? AND recording_id = ?", device.serial, device.partnerID, device.userID, recordingID
        ).map { try $0.decode(DeviceRecordingRow.self) }
    }

    /// The stored recording, when a repeat names the same digest.
    static func same(_ stored: DeviceRecordingRow, sha256: String, serial: String) throws -> DeviceRecording {
        guard stored.sha256 == sha256 else {
            throw PlatformError.conflict(
                "recording \(stored.recordingID) of device \(serial) is already stored with SHA-256 \(stored.sha256), "
                    + "not \(sha256); do not acknowledge this one to the device")
        }
        return stored.wire
    }

    /// A device recording id: the protocol's u32.
    static func recordingID(_ id: Int64) throws -> Int64 {
        guard (0...Int64(UInt32.max)).contains(id) else {
            throw PlatformError.invalidArgument("recording_id must be the device's recording id (0-\(UInt32.max))")
        }
        return id
    }

    /// The upload file type of a device codec: `opus` (Ogg Opus) → `ogg`, `wav` → `wav`.
    static func filetype(ofCodec codec: String) throws -> String {
        switch codec.lowercased() {
        case "opus": "ogg"
        case "wav": "wav"
        default:
            throw PlatformError.invalidArgument("codec \"\(codec.prefix(16))\" is unknown; use opus or wav")
        }
    }
}
