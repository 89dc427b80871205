import EarshotAPI
import EarshotAudio
import EarshotCore
import EarshotHTTP
import EarshotSpeech
import EarshotStore
import Foundation

/// The records library: create a record from an uploaded file, list, search, read, update, delete, stream audio.
///
/// One set of routes serves both kinds of token: a user token sees and changes only its own user's records, a
/// partner token every record of its tenant. Another tenant's record (or another user's, for a user token)
/// answers 404 exactly like a missing one.
struct RecordsService: Sendable {
    let metadata: any MetadataStore
    let blobs: any BlobStore
    let uploads: UploadService
    let transcriptions: TranscriptionService
    let tasks: RecordTasks
    let running: RunningJobs
    let logger = Logger(label: "records")
    var now: @Sendable () -> Int64 = JobQueue.wallClock

    static let maxTitleLength = 200
    static let maxTags = 32
    static let maxTagLength = 64

    // MARK: Create

    func create(for caller: Principal, _ request: RecordCreateRequest) async throws -> RecordDetail {
        let fileID = try await transcriptions.fileID(from: request.fileID)
        if !caller.isPartner, let userID = request.userID, userID != caller.userID {
            throw PlatformError.invalidArgument("user_id comes from the user token; omit it")
        }
        if let userID = request.userID, userID.isEmpty || userID.count > 128 {
            throw PlatformError.invalidArgument("user_id must be 1-128 characters")
        }
        let file = try await metadata.read { db in
            try db.queryFirst(
                "SELECT user_id, blob_key FROM files WHERE id = ? AND partner_id = ? AND (? IS NULL OR user_id = ?)",
                fileID, caller.partnerID, caller.userID, caller.userID)
        }
        guard let file else {
            throw PlatformError.notFound("no file \(fileID); upload it first (complete-upload returns its FileId)")
        }
        let fileUser = try file.decode("user_id", as: String?.self)
        if let fileUser, let requested = request.userID, requested != fileUser {
            throw PlatformError.invalidArgument(
                "user_id \(requested) does not match the user who uploaded file \(fileID) (\(fileUser))")
        }
        let owner = caller.userID ?? request.userID ?? fileUser
        let recordTime = request.recordTimeMs ?? now()
        guard (0...32_503_680_000_000).contains(recordTime) else {
            throw PlatformError.invalidArgument("record_time_ms must be Unix milliseconds between 1970 and 3000")
        }
        let title = try Self.title(request.title)
        let tags = try Self.tags(request.tags ?? [])
        let language = try Self.language(request.language)
        let source = try Self.source(request.source)
        let (envelope, durationMs) = try await measure(blobKey: try file.decode("blob_key", as: String.self), fileID)
        let at = now()
        let row = try await metadata.write { db in
            if let existing = try Library.record(ofFile: fileID, db) {
                throw PlatformError.conflict(
                    "file \(fileID) already has a record (\(existing.id)); use that record or upload the audio again")
            }
            guard let stored = try UploadService.file(db, id: fileID) else {
                throw PlatformError.notFound("no file \(fileID); upload it first (complete-upload returns its FileId)")
            }
            return try Library.insert(
                db,
                .init(
                    partnerID: caller.partnerID, userID: owner, file: stored, title: title, tags: tags,
                    recordTime: recordTime, language: language, source: source, durationMs: durationMs,
                    envelope: envelope), at: at)
        }
        logger.info("record created", metadata: ["record": row.id, "file": fileID, "duration_ms": "\(durationMs)"])
        return try await detail(for: caller, id: row.id)
    }

    /// Keeps a file a synchronous request transcribed (the OpenAI-compatible endpoint's `store=true`) as a record
    /// of `caller`, with its transcript and a finished transcription task in its history. Returns the record id.
    func keep(
        _ file: URL, filetype: String, name: String?, for caller: Principal, transcript: Transcript,
        samples: [Float], model: String, task: String
    ) async throws -> String {
        let result = String(decoding: try TranscriptionService.encoder.encode(transcript), as: UTF8.self)
        let started = now()
        let queue = tasks.queue
        let record = try await uploads.keep(
            movingFile: file, owner: (caller.partnerID, caller.userID), filetype: filetype, originalName: name
        ) { db, stored in
            let record = try Library.insert(
                db,
                .init(
                    partnerID: caller.partnerID, userID: caller.userID, file: stored,
                    language: transcript.language), at: started)
            try Library.measure(db, recordID: record.id, samples: samples, at: started)
            let payload = TranscriptionPayload(
                fileID: stored.id, model: model, language: nil, task: task, diarization: nil, callbackURL: nil,
                userID: caller.userID)
            let new = NewJob(
                id: Identifier.make(prefix: "task"), tenant: caller.partnerID, subject: caller.userID,
                kind: TranscriptionJob.name, payload: try Self.json(payload))
            // The link first: the queue's final-state hook copies the transcript into the linked record.
            try RecordTasks.link(
                db, jobID: new.id, recordID: record.id, plan: RecordTaskPlan(transcription: payload), at: started)
            try queue.insertSucceeded(db, new, result: result, startedAt: started)
            return record.id
        }
        logger.info("record kept from a synchronous transcription", metadata: ["record": record])
        return record
    }

    /// Decodes the file once: its amplitude envelope (quantised) and duration; audio Earshot cannot decode is
    /// `INVALID_ARGUMENT`.
    func measure(blobKey: String, _ fileID: String) async throws -> ([UInt8], Int) {
        do {
            return try await Library.decodeMeasurement(of: try BlobKey(blobKey), in: blobs)
        } catch let error as AudioError {
            throw PlatformError.invalidArgument(
                "file \(fileID) is not audio Earshot can decode (\(error.code)); upload WAV, MP3, M4A/AAC, FLAC, "
                    + "Ogg/Opus or WebM audio")
        }
    }

    // MARK: Read

    func detail(for caller: Principal, id: String) async throws -> RecordDetail {
        // Tasks first, the record second: a task's result is written to the record in the transaction that marks it
        // succeeded, so a task read as finished always has its result in the record read after it. (The other order
        // could answer a finished summary task with no summary, and a page that stops polling at the task's end
        // would never show it.)
        let tasks = try await tasks.list(for: caller, recordID: id, limit: 5)
        let row = try await record(for: caller, id: id)
        return try row.detail(tasks: tasks)
    }

    /// Parsed list filters.
    struct Filters: Sendable {
        var tag: String?
        var from: Int64?
        var to: Int64?
        var source: String?
        var hasTranscript: Bool?
        var userID: String?
    }

    func list(for caller: Principal, cursor: String?, limit: Int?, filters: Filters) async throws -> RecordList {
        let limit = try Self.limit(limit)
        var cursorPosition: (Int64, String)?
        if let cursor {
            guard let dot = cursor.firstIndex(of: "."), let time = Int64(cursor[..<dot]),
                Identifier.isValid(String(cursor[cursor.index(after: dot)...]), prefix: "rec")
            else {
                throw PlatformError.invalidArgument("cursor is malformed; pass next_cursor from the previous page")
            }
            cursorPosition = (time, String(cursor[cursor.index(after: dot)...]))
        }
        if let from = filters.from, let to = filters.to, from > to {
            throw PlatformError.invalidArgument("from is after to; swap them")
        }
        let user = caller.userID ?? filters.userID
        let after = cursorPosition
        let rows = try await metadata.read { db in
            try db.query(
                "SELECT \(RecordRow.listColumns(db.dialect)) FROM records WHERE partner_id = ? "
                    + "AND (? IS NULL OR user_id = ?) AND (? IS NULL OR EXISTS (SELECT 1 FROM "
                    + (db.dialect == .postgresql
                        ? "json_array_elements_text(records.tags::json) AS tag(value)" : "json_each(records.tags)")
                    + " WHERE value = ?)) "
                    + "AND (? IS NULL OR record_time >= ?) AND (? IS NULL OR record_time <= ?) "
                    + "AND (? IS NULL OR source = ? OR (? = 'device' AND source LIKE 'device:%')) "
                    + "AND (? IS NULL OR (CASE WHEN transcript IS NULL THEN 0 ELSE 1 END) = ?) "
                    + "AND (? IS NULL OR record_time < ? OR (record_time = ? AND id < ?)) "
                    + "ORDER BY record_time DESC, id DESC LIMIT ?",
                [
                    .text(caller.partnerID), user.sqlValue, user.sqlValue, filters.tag.sqlValue, filters.tag.sqlValue,
                    filters.from.sqlValue, filters.from.sqlValue, filters.to.sqlValue, filters.to.sqlValue,
                    filters.source.sqlValue, filters.source.sqlValue, filters.source.sqlValue,
                    filters.hasTranscript.sqlValue,
                    filters.hasTranscript.sqlValue, (after?.0).sqlValue, (after?.0).sqlValue, (after?.0).sqlValue,
                    (after?.1).sqlValue, .integer(Int64(limit + 1)),
                ]
            ).map { try $0.decode(RecordListRow.self) }
        }
        let page = rows.prefix(limit)
        let next = rows.count > limit ? page.last.map { "\($0.row.recordTime).\($0.row.id)" } : nil
        let running = try await tasks.running(for: caller, recordIDs: page.map(\.row.id))
        return RecordList(
            records: page.map { item in
                var wire = item.wire
                wire.runningTasks = running[item.row.id] ?? []
                return wire
            },
            nextCursor: next)
    }

    func search(
        for caller: Principal, query: String?, limit: Int?, offset: Int?, userID: String?
    ) async throws -> RecordSearchResults {
        let query = query?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !query.isEmpty else { throw PlatformError.invalidArgument("q is required: the words to search for") }
        guard query.count <= RecordSearch.maxQueryLength else {
            throw PlatformError.invalidArgument("q is longer than \(RecordSearch.maxQueryLength) characters")
        }
        guard RecordSearch.terms(query).count <= RecordSearch.maxTerms else {
            throw PlatformError.invalidArgument("q has more than \(RecordSearch.maxTerms) words; shorten it")
        }
        let limit = try Self.limit(limit, default: 20, max: 100)
        let offset = offset ?? 0
        guard (0...10_000).contains(offset) else {
            throw PlatformError.invalidArgument("offset must be between 0 and 10000")
        }
        let scope = RecordSearch.Scope(partnerID: caller.partnerID, userID: caller.userID ?? userID)
        return try await metadata.read { db in
            let (hits, more) = try RecordSearch.search(db, query: query, scope: scope, limit: limit, offset: offset)
            var rows: [String: RecordListRow] = [:]
            for hit in hits {
                if let row = try db.queryFirst(
                    "SELECT \(RecordRow.listColumns(db.dialect)) FROM records WHERE id = ?", hit.recordID)
                {
                    rows[hit.recordID] = try row.decode(RecordListRow.self)
                }
            }
            return RecordSearchResults(
                query: query,
                hits: hits.compactMap { hit in
                    rows[hit.recordID].map { row in
                        RecordSearchResults.Hit(
                            record: row.wire, score: hit.score,
                            matches: hit.matches.map {
                                .init(field: $0.field, startMs: $0.startMs, snippet: $0.snippet)
                            })
                    }
                }, nextOffset: more ? offset + hits.count : nil)
        }
    }

    // MARK: Update

    func update(for caller: Principal, id: String, _ request: RecordUpdateRequest) async throws -> RecordDetail {
        let title = try Self.title(request.title)
        let tags = try request.tags.map(Self.tags)
        guard title != nil || tags != nil || request.speakerNames != nil else {
            throw PlatformError.invalidArgument("nothing to update: send title, tags or speaker_names")
        }
        let row = try await record(for: caller, id: id)
        let transcript = try row.transcript()
        let names = try request.speakerNames.map {
            try SpeakerNames.merge(
                $0, into: row.speakerNames, labels: SpeakerNames.labels(of: transcript), subject: "record \(id)")
        }
        let newTitle = title ?? row.title
        let newTags = tags ?? row.tags
        let tagsJSON = try Self.json(newTags)
        let at = now()
        try await metadata.write { db in
            try db.execute("UPDATE records SET title = ?, tags = ?, updated_at = ? WHERE id = ?", newTitle, tagsJSON, at, id)
            if let names { try Library.setSpeakerNames(db, recordID: id, names) }
            if title != nil || tags != nil {
                try RecordSearch.index(
                    db, recordID: id, title: newTitle, tags: newTags,
                    sentences: transcript?.segments.map { ($0.startMs, $0.text) } ?? [])
            }
        }
        return try await detail(for: caller, id: id)
    }

    // MARK: Delete

    /// Deletes the record and every copy of its content (see ``Library/delete(_:_:queue:)``); running jobs of the
    /// record stop.
    func delete(for caller: Principal, id: String) async throws {
        let row = try await record(for: caller, id: id)
        let queue = tasks.queue
        let (jobs, blob) = try await metadata.write { db in try Library.delete(db, row, queue: queue) }
        running.stop(jobs)
        if let blob { try await blobs.delete(blob) }
        logger.info("record deleted", metadata: ["record": id, "file": row.fileID, "jobs": "\(jobs.count)"])
    }

    // MARK: Audio and exports

    /// `307 Temporary Redirect` to a presigned URL of `key` that expires in 10 minutes (blobs in an object store are
    /// read from it directly; the redirect keeps the method, and Range requests work there too).
    static func redirect(
        to blobs: any BlobStore, _ key: BlobKey, contentType: String, disposition: String
    ) async throws -> Response {
        guard
            let url = try await blobs.presignedReadURL(
                for: key, expires: .seconds(600), contentType: contentType, contentDisposition: disposition)
        else {
            throw PlatformError.notFound("blob \(key) is not stored on this server")
        }
        return Response(status: 307, headers: ["Location": url.absoluteString, "Cache-Control": "no-store"])
    }

    func audio(for caller: Principal, id: String) async throws -> Response {
        let row = try await record(for: caller, id: id)
        guard
            let file = try await metadata.read({ db in
                try db.queryFirst("SELECT blob_key, filetype FROM files WHERE id = ?", row.fileID)
            })
        else { throw PlatformError.notFound("the audio of record \(id) is not stored on this server") }
        let key = try BlobKey(try file.decode("blob_key", as: String.self))
        let filetype = try file.decode("filetype", as: String.self)
        let disposition = "inline; filename=\"\(id).\(filetype)\""
        guard let path = try await blobs.localFile(for: key) else {
            // An object store: the client reads the audio from it with a short-lived presigned URL.
            return try await Self.redirect(
                to: blobs, key, contentType: FileTypes.contentType(for: filetype), disposition: disposition)
        }
        return try Response.file(
            path: path.path, contentType: FileTypes.contentType(for: filetype),
            headers: ["Content-Disposition": disposition])
    }

    func export(for caller: Principal, id: String, format rawFormat: String?) async throws -> Response {
        let name = rawFormat?.lowercased() ?? "md"
        guard let format = RecordExport.Format(rawValue: name) else {
            throw PlatformError.invalidArgument("format \"\(name)\" is unknown; use txt, srt, vtt, json or md")
        }
        let row = try await record(for: caller, id: id)
        let export = try RecordExport(row)
        if format != .md && export.transcript == nil {
            throw PlatformError.conflict(
                "record \(id) has no transcript yet; run task_type 0 (or export format=md for the note so far)")
        }
        return Response(
            status: .ok,
            headers: [
                "Content-Type": format.contentType,
                "Content-Disposition": "attachment; filename=\"\(id).\(format.rawValue)\"",
            ],
            body: .bytes(Array(export.render(format).utf8)))
    }

    // MARK: Helpers

    /// The record `id` if `caller` may see it; otherwise 404 exactly like a missing one.
    func record(for caller: Principal, id: String) async throws -> RecordRow {
        guard Identifier.isValid(id, prefix: "rec"),
            let row = try await metadata.read({ db in
                try db.queryFirst(
                    "SELECT \(RecordRow.columns) FROM records WHERE id = ? AND partner_id = ? "
                        + "AND (? IS NULL OR user_id = ?)",
                    id, caller.partnerID, caller.userID, caller.userID
                ).map { try $0.decode(RecordRow.self) }
            })
        else { throw PlatformError.notFound("no record \(id)") }
        return row
    }

    static func limit(_ limit: Int?, default value: Int = 50, max: Int = 200) throws -> Int {
        let limit = limit ?? value
        guard (1...max).contains(limit) else {
            throw PlatformError.invalidArgument("limit must be between 1 and \(max)")
        }
        return limit
    }

    static func title(_ title: String?) throws -> String? {
        guard let title else { return nil }
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maxTitleLength else {
            throw PlatformError.invalidArgument("title must be 1-\(maxTitleLength) characters")
        }
        return trimmed
    }

    static func tags(_ tags: [String]) throws -> [String] {
        guard tags.count <= maxTags else {
            throw PlatformError.invalidArgument("at most \(maxTags) tags per record (got \(tags.count))")
        }
        var seen = Set<String>()
        var result: [String] = []
        for tag in tags {
            let trimmed = tag.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.count <= maxTagLength else {
                throw PlatformError.invalidArgument(
                    "each tag must be 1-\(maxTagLength) characters (\"\(trimmed.prefix(70))\" is not)")
            }
            if seen.insert(trimmed).inserted { result.append(trimmed) }
        }
        return result
    }

    static func language(_ language: String?) throws -> String? {
        guard let value = language?.trimmingCharacters(in: .whitespaces).lowercased(), !value.isEmpty else {
            return nil
        }
        guard SpeechModel.isKnownLanguage(value) else {
            throw PlatformError.invalidArgument("language \"\(value)\" is unknown; use an ISO code such as en or zh")
        }
        return value
    }

    /// `import` (default), `phone`, or `device:<serial>` (serial: 1-64 of letters, digits, `-_.:`).
    static func source(_ source: String?) throws -> String {
        guard let source else { return "import" }
        if source == "import" || source == "phone" { return source }
        if source.hasPrefix("device:") {
            let serial = source.dropFirst("device:".count)
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_.:"))
            if !serial.isEmpty, serial.count <= 64,
                serial.unicodeScalars.allSatisfy({ allowed.contains($0) && $0.isASCII })
            {
                return source
            }
        }
        throw PlatformError.invalidArgument(
            "source \"\(source.prefix(80))\" is unknown; use import, phone or device:<serial>")
    }

    /// A date filter: Unix milliseconds, an ISO 8601 date-time, or a date (`2026-11-29`, UTC midnight; for `to`
    /// the end of that day).
    static func date(_ value: String?, name: String, endOfDay: Bool = false) throws -> Int64? {
        guard let value, !value.isEmpty else { return nil }
        if let ms = Int64(value), ms >= 0 { return ms }
        let full = ISO8601DateFormatter()
        full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        if let date = full.date(from: value) ?? plain.date(from: value) {
            return Int64((date.timeIntervalSince1970 * 1000).rounded())
        }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        if let date = day.date(from: value) {
            return Int64(date.timeIntervalSince1970 * 1000) + (endOfDay ? 86_400_000 - 1 : 0)
        }
        throw PlatformError.invalidArgument(
            "\(name) \"\(value.prefix(64))\" is not a date: use Unix milliseconds, 2026-11-29 or 2026-11-29T08:00:00Z")
    }

    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try TranscriptionService.encoder.encode(value), as: UTF8.self)
    }
}
