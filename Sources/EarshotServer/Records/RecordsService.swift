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
    let transcriptions: TranscriptionService
    let tasks: RecordTasks
    let logger = Logger(label: "records")
    var now: @Sendable () -> Int64 = JobQueue.wallClock

    static let maxTitleLength = 200
    static let maxTags = 32
    static let maxTagLength = 64

    // MARK: Create

    func create(for caller: Principal, _ request: RecordCreateRequest) async throws -> RecordDetail {
        try caller.require(.recordsWrite)
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
        let title = try Self.title(request.title) ?? Self.defaultTitle(recordTime)
        let tags = try Self.tags(request.tags ?? [])
        let language = try Self.language(request.language)
        let source = try Self.source(request.source)
        let (envelope, durationMs) = try await measure(blobKey: try file.decode("blob_key", as: String.self), fileID)
        let id = Identifier.make(prefix: "rec")
        let at = now()
        let tagsJSON = try Self.json(tags)
        try await metadata.write { db in
            if let existing = try db.scalar("SELECT id FROM records WHERE file_id = ?", fileID, as: String.self) {
                throw PlatformError.conflict(
                    "file \(fileID) already has a record (\(existing)); upload the audio again")
            }
            try db.execute(
                "INSERT INTO records (id, partner_id, user_id, file_id, title, tags, record_time, duration_ms, "
                    + "language, source, envelope, created_at, updated_at) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(id), .text(caller.partnerID), owner.sqlValue, .text(fileID), .text(title), .text(tagsJSON),
                    .integer(recordTime), .integer(Int64(durationMs)), language.sqlValue, .text(source),
                    .blob(envelope), .integer(at), .integer(at),
                ])
            try RecordSearch.index(db, recordID: id, title: title, tags: tags, sentences: [])
        }
        logger.info("record created", metadata: ["record": id, "file": fileID, "duration_ms": "\(durationMs)"])
        return try await detail(for: caller, id: id)
    }

    /// Decodes the file once: its amplitude envelope (quantised) and duration.
    private func measure(blobKey: String, _ fileID: String) async throws -> ([UInt8], Int) {
        guard let path = try await blobs.localFile(for: try BlobKey(blobKey)) else {
            throw PlatformError.conflict("file \(fileID) is not stored on a local file system")
        }
        do {
            let decoder = try await AudioDecoder.open(
                contentsOf: path, configuration: .init(allowTruncated: true))
            var builder = EnvelopeBuilder()
            var samples = 0
            for try await chunk in decoder.chunks() {
                builder.append(chunk)
                samples += chunk.count
            }
            return (builder.finish().encoded(), samples * 1000 / AudioDecoder.sampleRate)
        } catch let error as AudioError {
            throw PlatformError.invalidArgument(
                "file \(fileID) is not audio Earshot can decode (\(error.code)); upload WAV, MP3, M4A/AAC, FLAC, "
                    + "Ogg/Opus or WebM audio")
        }
    }

    // MARK: Read

    func detail(for caller: Principal, id: String) async throws -> RecordDetail {
        try caller.require(.recordsRead)
        let row = try await record(for: caller, id: id)
        return try row.detail(tasks: try await tasks.list(for: caller, recordID: id, limit: 5))
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
        try caller.require(.recordsRead)
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
                "SELECT \(RecordRow.listColumns) FROM records WHERE partner_id = ? AND (? IS NULL OR user_id = ?) "
                    + "AND (? IS NULL OR EXISTS (SELECT 1 FROM json_each(records.tags) WHERE value = ?)) "
                    + "AND (? IS NULL OR record_time >= ?) AND (? IS NULL OR record_time <= ?) "
                    + "AND (? IS NULL OR source = ?) AND (? IS NULL OR (transcript IS NOT NULL) = ?) "
                    + "AND (? IS NULL OR record_time < ? OR (record_time = ? AND id < ?)) "
                    + "ORDER BY record_time DESC, id DESC LIMIT ?",
                [
                    .text(caller.partnerID), user.sqlValue, user.sqlValue, filters.tag.sqlValue, filters.tag.sqlValue,
                    filters.from.sqlValue, filters.from.sqlValue, filters.to.sqlValue, filters.to.sqlValue,
                    filters.source.sqlValue, filters.source.sqlValue, filters.hasTranscript.sqlValue,
                    filters.hasTranscript.sqlValue, (after?.0).sqlValue, (after?.0).sqlValue, (after?.0).sqlValue,
                    (after?.1).sqlValue, .integer(Int64(limit + 1)),
                ]
            ).map { try $0.decode(RecordListRow.self) }
        }
        let page = rows.prefix(limit)
        let next = rows.count > limit ? page.last.map { "\($0.row.recordTime).\($0.row.id)" } : nil
        return RecordList(records: page.map { $0.wire }, nextCursor: next)
    }

    func search(
        for caller: Principal, query: String?, limit: Int?, offset: Int?, userID: String?
    ) async throws -> RecordSearchResults {
        try caller.require(.recordsRead)
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
                    "SELECT \(RecordRow.listColumns) FROM records WHERE id = ?", hit.recordID)
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
        try caller.require(.recordsWrite)
        let title = try Self.title(request.title)
        let tags = try request.tags.map(Self.tags)
        if let names = request.speakerNames {
            guard names.count <= 64 else {
                throw PlatformError.invalidArgument("speaker_names has more than 64 entries")
            }
            for (label, name) in names where label.isEmpty || label.count > 64 || name.count > 64 {
                throw PlatformError.invalidArgument(
                    "speaker_names: labels must be 1-64 characters and names at most 64 (\"\(label.prefix(70))\")")
            }
        }
        guard title != nil || tags != nil || request.speakerNames != nil else {
            throw PlatformError.invalidArgument("nothing to update: send title, tags or speaker_names")
        }
        let row = try await record(for: caller, id: id)
        var names = row.speakerNames
        for (label, name) in request.speakerNames ?? [:] {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            names[label] = trimmed.isEmpty ? nil : trimmed
        }
        let newTitle = title ?? row.title
        let newTags = tags ?? row.tags
        let tagsJSON = try Self.json(newTags)
        let namesJSON = try Self.json(names)
        let at = now()
        let transcript = try row.transcript()
        try await metadata.write { db in
            try db.execute(
                "UPDATE records SET title = ?, tags = ?, speaker_names = ?, updated_at = ? WHERE id = ?", newTitle,
                tagsJSON, namesJSON, at, id)
            if title != nil || tags != nil {
                try RecordSearch.index(
                    db, recordID: id, title: newTitle, tags: newTags,
                    sentences: transcript?.segments.map { ($0.startMs, $0.text) } ?? [])
            }
        }
        return try await detail(for: caller, id: id)
    }

    // MARK: Delete

    /// Deletes the record, its file (row and blob), its search rows and its tasks (running ones are revoked).
    func delete(for caller: Principal, id: String) async throws {
        try caller.require(.recordsWrite)
        let row = try await record(for: caller, id: id)
        let (blobKey, jobs) = try await metadata.write { db -> (String?, [String]) in
            let jobs = try db.query("SELECT job_id FROM record_tasks WHERE record_id = ?", id).map {
                try $0.decode("job_id", as: String.self)
            }
            for job in jobs {
                try db.execute(
                    "DELETE FROM webhook_attempts WHERE delivery_id IN "
                        + "(SELECT id FROM webhook_deliveries WHERE job_id = ?)", job)
                try db.execute("DELETE FROM webhook_deliveries WHERE job_id = ?", job)
                try db.execute("DELETE FROM jobs WHERE id = ?", job)
            }
            try db.execute("DELETE FROM record_tasks WHERE record_id = ?", id)
            try RecordSearch.remove(db, recordID: id)
            try db.execute("DELETE FROM records WHERE id = ?", id)
            let key = try db.scalar("SELECT blob_key FROM files WHERE id = ?", row.fileID, as: String.self)
            try db.execute("DELETE FROM files WHERE id = ?", row.fileID)
            try db.execute("DELETE FROM uploads WHERE file_id = ?", row.fileID)
            return (key, jobs)
        }
        tasks.stopRunning(jobs)
        if let blobKey { try await blobs.delete(try BlobKey(blobKey)) }
        logger.info("record deleted", metadata: ["record": id, "file": row.fileID])
    }

    // MARK: Audio and exports

    func audio(for caller: Principal, id: String) async throws -> Response {
        try caller.require(.recordsRead)
        let row = try await record(for: caller, id: id)
        guard
            let file = try await metadata.read({ db in
                try db.queryFirst("SELECT blob_key, filetype FROM files WHERE id = ?", row.fileID)
            }),
            let path = try await blobs.localFile(for: try BlobKey(try file.decode("blob_key", as: String.self)))
        else { throw PlatformError.notFound("the audio of record \(id) is not stored on this server") }
        let filetype = try file.decode("filetype", as: String.self)
        return try Response.file(
            path: path.path, contentType: FileTypes.contentType(for: filetype),
            headers: ["Content-Disposition": "inline; filename=\"\(id).\(filetype)\""])
    }

    func export(for caller: Principal, id: String, format rawFormat: String?) async throws -> Response {
        try caller.require(.recordsRead)
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

    static func defaultTitle(_ recordTime: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return "Recording " + formatter.string(from: Date(timeIntervalSince1970: Double(recordTime) / 1000))
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
