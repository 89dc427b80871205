import EarshotAPI
import EarshotCore
import EarshotCrypto
import EarshotHTTP
import EarshotStore
import Foundation

/// Multipart uploads: plans with presigned part URLs, part storage with MD5 ETags, verified atomic assembly,
/// resumption, abort, signed downloads and garbage collection of abandoned uploads.
///
/// The file's SHA-256 is computed as parts arrive, not at completion: each part extends the running digest saved
/// with the part before it (``ResumableSHA256``, kept in `upload_parts.running_sha256`, so a restart resumes it),
/// and parts that arrived early are folded in once the gap before them is filled. Completion checks every part
/// is still the one received (size and MD5 against its row), digests only parts the chain does not cover yet, and
/// has the blob store assemble the file without reading it back (docs/decisions/0009-upload-running-digest.md).
///
/// Tenancy: every look-up made for a ``Principal`` filters by its partner (and by its user for user tokens); a
/// resource of another tenant is answered exactly like a missing one (404 `NOT_FOUND`). Part writes,
/// completion, abort and collection of one upload are serialised by a ``KeyedLock``.
struct UploadService: Sendable {
    struct Configuration: Sendable {
        /// Size of every part but the last.
        var chunkSize = 5 << 20
        /// Largest accepted file.
        var maxFileSize = 2 << 30
        /// Accepted file types (lowercase extensions).
        var filetypes = FileTypes.defaults
        /// Lifetime of presigned part URLs.
        var partURLTTL: Duration = .seconds(3600)
        /// Lifetime of download URLs.
        var downloadURLTTL: Duration = .seconds(86400)
        /// Open uploads older than this are deleted by ``sweep()``.
        var maxAge: Duration = .seconds(86400)
        /// Clients upload parts straight to the blob store when it can take them (S3) and ``chunkSize`` is at least
        /// its smallest part (`upload-direct`; the settings loader refuses a smaller chunk with it).
        var direct = false
    }

    /// Most parts one upload may have.
    static let maximumPartCount = 10_000

    let metadata: any MetadataStore
    let blobs: any BlobStore
    let signer: URLSigner
    let links: PublicLinks
    let configuration: Configuration
    let locks = KeyedLock()
    /// Part blobs of completed uploads, deleted by ``deleteRetiredParts()`` after completion has answered.
    private let retiredParts = AsyncStream<[BlobKey]>.makeStream()
    var now: @Sendable () -> Date = Date.init
    let logger = Logger(label: "uploads")

    // MARK: Plan

    func plan(
        for caller: Principal, filesize: Int, filetype rawType: String, filename: String? = nil
    ) async throws -> UploadPlan {
        let originalName = try Self.originalName(filename)
        let filetype =
            rawType.lowercased().hasPrefix(".") ? String(rawType.lowercased().dropFirst()) : rawType.lowercased()
        guard configuration.filetypes.contains(filetype) else {
            throw PlatformError.invalidArgument(
                "filetype \"\(rawType)\" is not accepted; use one of: "
                    + configuration.filetypes.joined(separator: ", "))
        }
        guard filesize >= 1 else { throw PlatformError.invalidArgument("filesize must be at least 1 byte") }
        guard filesize <= configuration.maxFileSize else {
            throw PlatformError.payloadTooLarge(
                "filesize \(filesize) exceeds the largest accepted file of \(configuration.maxFileSize) bytes")
        }
        let chunk = configuration.chunkSize
        let partCount = (filesize + chunk - 1) / chunk
        guard partCount <= Self.maximumPartCount else {
            throw PlatformError.payloadTooLarge("filesize \(filesize) needs more than \(Self.maximumPartCount) parts")
        }
        let (uploadID, fileID) = (Identifier.make(prefix: "upl"), Identifier.make(prefix: "file"))
        // Direct: the object store's multipart upload into the file's final key comes first (its id goes in the row).
        let direct = directStore
        let storeUploadID = try await direct?.startDirectUpload(
            try BlobKey("files/\(fileID)"), metadata: ["earshot-upload": uploadID])
        let upload = UploadRecord(
            id: uploadID, fileID: fileID, partnerID: caller.partnerID, userID: caller.userID, filesize: filesize,
            filetype: filetype, chunkSize: chunk, partCount: partCount, state: "open", originalName: originalName,
            createdAt: milliseconds(now()), storeUploadID: storeUploadID)
        do {
            try await metadata.write { db in
                try db.execute(
                    "INSERT INTO uploads (id, file_id, partner_id, user_id, filesize, filetype, chunk_size, part_count, "
                        + "state, original_name, created_at, updated_at, store_upload_id) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?)",
                    upload.id, upload.fileID, upload.partnerID, upload.userID, upload.filesize, upload.filetype,
                    upload.chunkSize, upload.partCount, upload.originalName, upload.createdAt, upload.createdAt,
                    upload.storeUploadID)
            }
        } catch {
            if let direct, let storeUploadID {
                try? await direct.abortDirectUpload(try BlobKey(upload.fileKey), uploadID: storeUploadID)
            }
            throw error
        }
        var parts: [UploadPlan.Part] = []
        parts.reserveCapacity(partCount)
        for number in 1...partCount {
            parts.append(
                .init(
                    partNumber: number,
                    presignedURL: try await partURL(upload: upload, part: number, for: caller.issuer)))
        }
        logger.info(
            "upload planned",
            metadata: [
                "upload": upload.id, "partner": upload.partnerID, "size": "\(filesize)", "parts": "\(partCount)",
                "direct": "\(storeUploadID != nil)",
            ])
        return UploadPlan(fileID: upload.fileID, uploadID: upload.id, chunkSize: chunk, parts: parts)
    }

    // MARK: Parts

    /// Stores one part sent to a presigned URL (already verified) and returns its ETag (quoted MD5 hex).
    func storePart(uploadID: String, partNumber: Int, file: UploadedFile) async throws -> String {
        guard Identifier.isValid(uploadID, prefix: "upl"), let found = try await upload(uploadID) else {
            throw PlatformError.notFound("no upload \(uploadID); it was completed, aborted or expired")
        }
        guard (1...found.partCount).contains(partNumber) else {
            throw PlatformError.invalidArgument(
                "part \(partNumber) does not exist; this upload has parts 1-\(found.partCount)")
        }
        let expected = found.expectedSize(ofPart: partNumber)
        guard file.byteCount == expected else {
            throw PlatformError.invalidArgument(
                "part \(partNumber) must be exactly \(expected) bytes (every part but the last is ChunkSize "
                    + "\(found.chunkSize)), received \(file.byteCount)")
        }
        // Written to the device before the upload's lock is taken: the move into the blob store under it then has
        // no data left to flush, so the parts in flight reach the disk side by side.
        try await file.sync()
        return try await locks.withLock(uploadID) {
            guard let current = try await upload(uploadID) else {
                throw PlatformError.notFound("no upload \(uploadID); it was aborted or expired")
            }
            guard current.isOpen else {
                throw PlatformError.conflict("upload \(uploadID) is already completed; parts can no longer change")
            }
            guard current.storeUploadID == nil else {
                throw PlatformError.conflict(
                    "the parts of upload \(uploadID) go straight to the object store: PUT them to the PresignedUrl of "
                        + "the plan (GET \(APIPath.uploadParts) gives fresh ones)")
            }
            let key = try BlobKey(UploadRecord.partKey(upload: uploadID, part: partNumber))
            let info = try await blobs.put(
                key, movingFile: URL(fileURLWithPath: file.path),
                options: .init(
                    expectedMD5: file.md5, expectedSize: Int64(file.byteCount),
                    knownDigests: .init(size: Int64(file.byteCount), sha256: file.sha256, md5: file.md5)))
            let md5 = (info.md5 ?? file.md5).hex
            let at = milliseconds(now())
            try await metadata.write { db in
                try db.execute(
                    "INSERT INTO upload_parts (upload_id, part_number, size, md5, uploaded_at, running_sha256) "
                        + "VALUES (?, ?, ?, ?, ?, NULL) ON CONFLICT (upload_id, part_number) DO UPDATE SET "
                        + "size = excluded.size, md5 = excluded.md5, uploaded_at = excluded.uploaded_at, "
                        + "running_sha256 = NULL",
                    uploadID, partNumber, file.byteCount, md5, at)
                // A replaced part invalidates every running state from it on (they digested the old bytes).
                try db.execute(
                    "UPDATE upload_parts SET running_sha256 = NULL WHERE upload_id = ? AND part_number > ?", uploadID,
                    partNumber)
                try db.execute("UPDATE uploads SET updated_at = ? WHERE id = ?", at, uploadID)
            }
            do {
                try await advanceDigest(current, from: partNumber)
            } catch {
                // The part is stored; completion digests what the running digest does not cover.
                logger.warning(
                    "cannot extend the upload's running digest",
                    metadata: ["upload": uploadID, "part": "\(partNumber)", "error": "\(error)"])
            }
            return "\"\(md5)\""
        }
    }

    /// What has arrived, with fresh URLs for the missing parts.
    func status(for caller: Principal, uploadID: String) async throws -> UploadStatus {
        let found = try await ownedUpload(uploadID, for: caller)
        let parts =
            found.storeUploadID != nil && found.isOpen
            ? try await directParts(found).map { $0.value }.sorted { $0.partNumber < $1.partNumber }
            : try await storedParts(uploadID)
        let have = Set(parts.map(\.partNumber))
        var pending: [UploadStatus.PendingPart] = []
        if found.isOpen {
            for number in 1...found.partCount where !have.contains(number) {
                pending.append(
                    .init(
                        partNumber: number,
                        presignedURL: try await partURL(upload: found, part: number, for: caller.issuer)))
            }
        }
        return UploadStatus(
            uploadID: found.id, fileID: found.fileID, filesize: found.filesize, filetype: found.filetype,
            chunkSize: found.chunkSize, partCount: found.partCount, state: found.state,
            parts: parts.map { .init(partNumber: $0.partNumber, size: $0.size, etag: $0.etag) }, pending: pending)
    }

    /// Discards an open upload and its parts.
    func abort(for caller: Principal, uploadID: String) async throws {
        _ = try await ownedUpload(uploadID, for: caller)
        try await locks.withLock(uploadID) {
            guard let current = try await upload(uploadID) else { return }
            guard current.isOpen else {
                throw PlatformError.conflict("upload \(uploadID) is completed; its file \(current.fileID) stays")
            }
            try await discard(current)
        }
    }

    // MARK: Complete

    func complete(for caller: Principal, _ request: CompleteUploadRequest) async throws -> CompleteUploadResponse {
        let found = try await ownedUpload(request.uploadID, for: caller)
        guard request.fileID == found.fileID else {
            throw PlatformError.invalidArgument(
                "file_id \(request.fileID) does not belong to upload \(request.uploadID); send the FileId of its plan")
        }
        if let filetype = request.filetype, filetype.lowercased() != found.filetype {
            throw PlatformError.invalidArgument(
                "filetype \"\(filetype)\" differs from the plan's \"\(found.filetype)\"")
        }
        return try await locks.withLock(found.id) {
            guard let current = try await upload(found.id) else {
                throw PlatformError.notFound("no upload \(found.id); it was aborted or expired")
            }
            if !current.isOpen {
                // Completing again answers the same file (a retry after a lost response).
                return CompleteUploadResponse(
                    downloadURL: try await downloadURL(fileID: current.fileID, for: caller.issuer),
                    fileID: current.fileID)
            }
            if current.storeUploadID != nil {
                return try await completeDirect(current, request, for: caller)
            }
            let stored = Dictionary(uniqueKeysWithValues: try await storedParts(current.id).map { ($0.partNumber, $0) })
            try Self.check(request.partList, against: stored, upload: current)
            let partKeys = try (1...current.partCount).map {
                try BlobKey(UploadRecord.partKey(upload: current.id, part: $0))
            }
            try await verifyStoredParts(current, partKeys: partKeys, stored: stored)
            let sha256 = try await finishDigest(current, partKeys: partKeys)
            let fileKey = try BlobKey("files/\(current.fileID)")
            let info = try await blobs.compose(
                partKeys, into: fileKey, options: .init(expectedSize: Int64(current.filesize), composedSHA256: sha256))
            let at = milliseconds(now())
            try await metadata.write { db in
                try Self.insertFile(
                    db, id: current.fileID, upload: current, sha256: info.sha256.hex, blobKey: fileKey, at: at)
                try db.execute("UPDATE uploads SET state = 'completed', updated_at = ? WHERE id = ?", at, current.id)
                try db.execute("DELETE FROM upload_parts WHERE upload_id = ?", current.id)
            }
            // Deleting 200 parts of a 1 GB upload takes 0.4 s on ext4: done after the answer, by the collector.
            retiredParts.continuation.yield(partKeys)
            logger.info(
                "upload completed",
                metadata: ["upload": current.id, "file": current.fileID, "size": "\(current.filesize)"])
            return CompleteUploadResponse(
                downloadURL: try await downloadURL(fileID: current.fileID, for: caller.issuer), fileID: current.fileID)
        }
    }

    // MARK: Running digest

    /// Extends the running SHA-256 with part `number` when the state after part `number - 1` exists (or it is part
    /// 1), then with each following part already stored (they arrived early), until a gap. Call with the upload's
    /// lock held, after the part's row is written. Reads each part once, from the blob store (page cache).
    private func advanceDigest(_ upload: UploadRecord, from number: Int) async throws {
        let uploadID = upload.id
        let (previous, waiting) = try await metadata.read { db in
            var previous: [UInt8]?
            if number > 1,
                let row = try db.queryFirst(
                    "SELECT running_sha256 FROM upload_parts WHERE upload_id = ? AND part_number = ?", uploadID,
                    number - 1)
            {
                previous = try row.decode("running_sha256", as: [UInt8]?.self)
            }
            let waiting = try db.query(
                "SELECT part_number FROM upload_parts WHERE upload_id = ? AND part_number >= ? ORDER BY part_number",
                [.text(uploadID), .integer(Int64(number))]
            ).map { try $0.decode("part_number", as: Int.self) }
            return (previous, waiting)
        }
        guard number == 1 || previous != nil else { return }  // an earlier part is missing: completion catches up
        var digest = try previous.map { try ResumableSHA256(state: $0) } ?? ResumableSHA256()
        var next = number
        for part in waiting {
            guard part == next else { break }
            try await feed(&digest, part: try BlobKey(UploadRecord.partKey(upload: uploadID, part: part)))
            let state = digest.state
            let covered = try await metadata.write { db in
                // Only while the part is still the one digested (a concurrent replacement would have reset it).
                try db.execute(
                    "UPDATE upload_parts SET running_sha256 = ? WHERE upload_id = ? AND part_number = ?", state,
                    uploadID, part)
            }
            guard covered == 1 else { return }
            next += 1
        }
    }

    /// The SHA-256 of the whole file: the highest saved running state, extended with the parts after it.
    private func finishDigest(_ upload: UploadRecord, partKeys: [BlobKey]) async throws -> Digest {
        let uploadID = upload.id
        let saved = try await metadata.read { db in
            try db.queryFirst(
                "SELECT part_number, running_sha256 FROM upload_parts WHERE upload_id = ? AND running_sha256 IS NOT NULL "
                    + "ORDER BY part_number DESC LIMIT 1", uploadID)
        }
        var digest = ResumableSHA256()
        var covered = 0
        if let saved {
            digest = try ResumableSHA256(state: try saved.decode("running_sha256", as: [UInt8].self))
            covered = try saved.decode("part_number", as: Int.self)
        }
        let coveredBytes = covered == 0 ? 0 : (covered - 1) * upload.chunkSize + upload.expectedSize(ofPart: covered)
        if digest.byteCount != Int64(coveredBytes) {
            logger.warning(
                "saved upload digest does not match its parts' sizes; digesting every part",
                metadata: ["upload": uploadID, "part": "\(covered)", "bytes": "\(digest.byteCount)"])
            (digest, covered) = (ResumableSHA256(), 0)
        }
        if covered < partKeys.count {
            logger.info(
                "digesting parts not covered by the running digest",
                metadata: ["upload": uploadID, "from_part": "\(covered + 1)", "parts": "\(partKeys.count)"])
        }
        for key in partKeys.dropFirst(covered) { try await feed(&digest, part: key) }
        return digest.finalize()
    }

    private func feed(_ digest: inout ResumableSHA256, part key: BlobKey) async throws {
        for try await chunk in try await blobs.get(key, range: nil).chunks { digest.update(chunk) }
    }

    /// Checks that every stored part is still the one received: its size and MD5 (the blob store's record of the
    /// file, re-digested by the file system store when the file changed since it was written) equal the part's
    /// row. A part damaged on disk is named, with what to do.
    private func verifyStoredParts(_ upload: UploadRecord, partKeys: [BlobKey], stored: [Int: PartRecord]) async throws
    {
        for (index, key) in partKeys.enumerated() {
            let number = index + 1
            guard let part = stored[number] else { continue }  // check(_:against:upload:) already refused this
            let info: BlobInfo
            do {
                info = try await blobs.info(key)
            } catch let error as StoreError where error.code == .notFound {
                throw PlatformError.conflict(
                    "part \(number) of upload \(upload.id) is missing from storage; PUT it again, then complete")
            }
            guard info.size == Int64(part.size), info.md5.map({ $0.hex == part.md5 }) ?? true else {
                logger.error(
                    "stored part differs from the one received",
                    metadata: ["upload": upload.id, "part": "\(number)", "size": "\(info.size)"])
                throw PlatformError.conflict(
                    "part \(number) of upload \(upload.id) changed in storage since it was received (its size or MD5 "
                        + "differs); PUT part \(number) again, then complete")
            }
        }
    }

    /// Checks that `list` names every part 1…N once, each with the stored part's ETag; names the first bad part.
    static func check(
        _ list: [CompleteUploadRequest.Part], against stored: [Int: PartRecord], upload: UploadRecord
    ) throws(PlatformError) {
        var seen = Set<Int>()
        for entry in list {
            guard (1...upload.partCount).contains(entry.partNumber) else {
                throw .invalidArgument(
                    "part \(entry.partNumber) does not exist; this upload has parts 1-\(upload.partCount)")
            }
            guard seen.insert(entry.partNumber).inserted else {
                throw .invalidArgument("part \(entry.partNumber) is listed twice in part_list")
            }
        }
        for number in 1...upload.partCount {
            guard let entry = list.first(where: { $0.partNumber == number }) else {
                throw .invalidArgument(
                    "part \(number) is missing from part_list; list every part 1-\(upload.partCount)")
            }
            guard let part = stored[number] else {
                throw .invalidArgument(
                    "part \(number) was never uploaded; PUT it first (GET \(APIPath.uploadParts) lists the missing parts)"
                )
            }
            guard normalizedETag(entry.etag) == part.md5 else {
                throw .invalidArgument(
                    "part \(number): ETag \(entry.etag) does not match the stored part's \(part.etag); re-upload part "
                        + "\(number) or send the ETag its PUT returned")
            }
            guard part.size == upload.expectedSize(ofPart: number) else {
                throw .invalidArgument(
                    "part \(number) has \(part.size) bytes, expected \(upload.expectedSize(ofPart: number))")
            }
        }
    }

    /// `"abc…"`, `abc…`, `W/"abc…"` → `abc…` lowercase.
    static func normalizedETag(_ etag: String) -> String {
        var value = Substring(etag.trimmingCharacters(in: .whitespaces))
        if value.hasPrefix("W/") { value = value.dropFirst(2) }
        if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = value.dropFirst().dropLast() }
        return value.lowercased()
    }

    // MARK: Files

    func fileInfo(for caller: Principal, fileID: String) async throws -> FileInfo {
        let file = try await ownedFile(fileID, for: caller)
        return FileInfo(
            fileID: file.id, userID: file.userID, size: file.size, sha256: file.sha256, filetype: file.filetype,
            mediaType: file.mediaType ?? FileTypes.contentType(for: file.filetype), filename: file.originalName,
            createdAtMs: file.createdAt, downloadURL: try await downloadURL(fileID: file.id, for: caller.issuer))
    }

    /// The response for a (verified) download URL: the file with sendfile and Range.
    func download(fileID: String) async throws -> Response {
        guard Identifier.isValid(fileID, prefix: "file"),
            let file = try await metadata.read({ db in
                try db.queryFirst("SELECT \(FileRecord.columns) FROM files WHERE id = ?", fileID)
                    .map { try $0.decode(FileRecord.self) }
            })
        else { throw PlatformError.notFound("no file \(fileID)") }
        let contentType = file.mediaType ?? FileTypes.contentType(for: file.filetype)
        let disposition = "attachment; filename=\"\(file.id).\(file.filetype)\""
        guard let local = try await blobs.localFile(for: try BlobKey(file.blobKey)) else {
            // An object store: the client downloads from it with a short-lived presigned URL.
            return try await RecordsService.redirect(
                to: blobs, try BlobKey(file.blobKey), contentType: contentType, disposition: disposition)
        }
        return try Response.file(
            path: local.path, contentType: contentType, headers: ["Content-Disposition": disposition])
    }

    // MARK: Files for the rest of the server

    /// The file `id` whatever its tenant (for jobs and the records library, which check tenancy themselves).
    static func file(_ db: any SQLDatabase, id: String) throws -> FileRecord? {
        try db.queryFirst("SELECT \(FileRecord.columns) FROM files WHERE id = ?", id).map {
            try $0.decode(FileRecord.self)
        }
    }

    /// ``file(_:id:)`` in its own read.
    func file(_ id: String) async throws -> FileRecord? {
        try await metadata.read { db in try Self.file(db, id: id) }
    }

    /// Deletes the rows of file `id` and of the upload that made it, inside the caller's transaction, and returns
    /// the blob to delete once that transaction has committed (nil when there was no such file).
    static func deleteFile(_ db: any SQLDatabase, id: String) throws -> BlobKey? {
        let key = try db.scalar("SELECT blob_key FROM files WHERE id = ?", id, as: String.self)
        try db.execute("DELETE FROM files WHERE id = ?", id)
        try db.execute("DELETE FROM uploads WHERE file_id = ?", id)
        return try key.map(BlobKey.init)
    }

    /// Keeps a file a request brought in one piece (the OpenAI-compatible endpoint with `store`): moves it into the
    /// blob store and, inside the caller's transaction `write`, records it as a completed one-part upload.
    ///
    /// - Returns: what `write` returns. The blob is deleted again when `write` throws.
    func keep<T: Sendable>(
        movingFile path: URL, owner: (partnerID: String, userID: String?), filetype: String, originalName: String?,
        then write: @escaping @Sendable (any SQLDatabase, FileRecord) throws -> T
    ) async throws -> T {
        let fileID = Identifier.make(prefix: "file")
        let key = try BlobKey("files/\(fileID)")
        let info = try await blobs.put(key, movingFile: path, options: .init())
        let at = milliseconds(now())
        let upload = UploadRecord(
            id: Identifier.make(prefix: "upl"), fileID: fileID, partnerID: owner.partnerID, userID: owner.userID,
            filesize: Int(info.size), filetype: filetype, chunkSize: max(Int(info.size), 1), partCount: 1,
            state: "completed", originalName: try Self.originalName(originalName), createdAt: at, storeUploadID: nil)
        do {
            return try await metadata.write { db in
                try db.execute(
                    "INSERT INTO uploads (id, file_id, partner_id, user_id, filesize, filetype, chunk_size, part_count, "
                        + "state, original_name, created_at, updated_at) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, 1, 'completed', ?, ?, ?)",
                    upload.id, upload.fileID, upload.partnerID, upload.userID, upload.filesize, upload.filetype,
                    upload.chunkSize, upload.originalName, at, at)
                let file = try Self.insertFile(
                    db, id: fileID, upload: upload, sha256: info.sha256.hex, blobKey: key, at: at)
                return try write(db, file)
            }
        } catch {
            try? await blobs.delete(key)
            throw error
        }
    }

    @discardableResult
    static func insertFile(
        _ db: any SQLDatabase, id: String, upload: UploadRecord, sha256: String, blobKey: BlobKey, at: Int64
    ) throws -> FileRecord {
        try db.queryFirst(
            "INSERT INTO files (id, partner_id, user_id, upload_id, size, sha256, filetype, media_type, original_name, "
                + "blob_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING \(FileRecord.columns)",
            id, upload.partnerID, upload.userID, upload.id, upload.filesize, sha256, upload.filetype,
            FileTypes.contentType(for: upload.filetype), upload.originalName, blobKey.rawValue, at
        )!.decode(FileRecord.self)
    }

    /// A file name as the sender gave it, reduced to its last path component; nil for none. At most 255
    /// characters, no control characters.
    static func originalName(_ name: String?) throws(PlatformError) -> String? {
        guard let name else { return nil }
        let base =
            name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init)?
            .trimmingCharacters(in: .whitespaces) ?? ""
        guard !base.isEmpty else { return nil }
        guard base.count <= 255, !base.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .invalidArgument("filename must be at most 255 characters without control characters")
        }
        return base
    }

    // MARK: Garbage collection

    /// Deletes the part blobs of completed uploads as completions hand them over, until cancelled. Parts left when
    /// it stops (a shutdown) belong to no open upload, so ``sweep()`` deletes them.
    func deleteRetiredParts() async {
        for await keys in retiredParts.stream {
            for key in keys {
                do {
                    try await blobs.delete(key)
                } catch {
                    logger.warning(
                        "cannot delete a completed upload's part; the sweep retries",
                        metadata: ["key": key.rawValue, "error": "\(error)"])
                }
            }
        }
    }

    /// Deletes open uploads older than ``Configuration/maxAge`` (parts and rows), and part blobs no open upload
    /// owns (left by a crash between assembly and cleanup). Returns how many uploads were deleted.
    @discardableResult
    func sweep() async throws -> Int {
        let cutoff = milliseconds(now()) - configuration.maxAge.milliseconds
        let stale = try await metadata.read { db in
            try db.query(
                "SELECT \(UploadRecord.columns) FROM uploads WHERE state = 'open' AND updated_at < ? ORDER BY created_at",
                [.integer(cutoff)]
            ).map { try $0.decode(UploadRecord.self) }
        }
        var deleted = 0
        for upload in stale {
            deleted += try await locks.withLock(upload.id) {
                guard let current = try await self.upload(upload.id), current.isOpen else { return 0 }
                // A direct upload's parts go to the store, not through here: its newest part counts as activity.
                if current.storeUploadID != nil, let last = try await lastDirectActivity(current),
                    milliseconds(last) >= cutoff
                {
                    try await metadata.write { db in
                        try db.execute("UPDATE uploads SET updated_at = ? WHERE id = ?", milliseconds(last), current.id)
                    }
                    return 0
                }
                try await discard(current)
                return 1
            }
        }
        if deleted > 0 { logger.notice("abandoned uploads deleted", metadata: ["count": "\(deleted)"]) }
        try await sweepDirectUploads(olderThan: cutoff)
        // Orphaned part blobs: their upload is gone or completed.
        let keys = try await blobs.list(prefix: "uploads/")
        let owners = Set(keys.compactMap { $0.segments.count == 3 ? String($0.segments[1]) : nil })
        for owner in owners {
            try await locks.withLock(owner) {
                if let current = try await self.upload(owner), current.isOpen { return }
                for key in keys where key.segments.count == 3 && key.segments[1] == owner {
                    try await blobs.delete(key)
                }
            }
        }
        return deleted
    }

    // MARK: Helpers

    /// Where the client `PUT`s part `part`: the object store's presigned `UploadPart` URL for a direct upload, else
    /// this server's signed part URL.
    private func partURL(upload: UploadRecord, part: Int, for issuer: URLSigner.Issuer) async throws -> String {
        if let storeUploadID = upload.storeUploadID {
            return try directStore(for: upload).presignedPartURL(
                try BlobKey(upload.fileKey), uploadID: storeUploadID, partNumber: part,
                expires: configuration.partURLTTL
            ).absoluteString
        }
        let (path, query) = try await signer.sign(
            .uploadPart, ["upload_id": upload.id, "part_number": "\(part)"], lifetime: configuration.partURLTTL,
            for: issuer)
        return links.url(path, query: query)
    }

    func downloadURL(fileID: String, for issuer: URLSigner.Issuer) async throws -> String {
        let (path, query) = try await signer.sign(
            .fileDownload, ["file_id": fileID], lifetime: configuration.downloadURLTTL, for: issuer)
        return links.url(path, query: query)
    }

    /// The upload `id` regardless of tenant (for signed-URL requests and internal use).
    func upload(_ id: String) async throws -> UploadRecord? {
        try await metadata.read { db in
            try db.queryFirst("SELECT \(UploadRecord.columns) FROM uploads WHERE id = ?", id)
                .map { try $0.decode(UploadRecord.self) }
        }
    }

    /// The upload `id` if `caller` may see it; otherwise 404 exactly like a missing one.
    private func ownedUpload(_ id: String, for caller: Principal) async throws -> UploadRecord {
        let notFound = PlatformError.notFound("no upload \(id)")
        guard Identifier.isValid(id, prefix: "upl") else { throw notFound }
        let found = try await metadata.read { db in
            try db.queryFirst(
                "SELECT \(UploadRecord.columns) FROM uploads WHERE id = ? AND partner_id = ? "
                    + "AND (? IS NULL OR user_id = ?)",
                id, caller.partnerID, caller.userID, caller.userID
            ).map { try $0.decode(UploadRecord.self) }
        }
        guard let found else { throw notFound }
        return found
    }

    /// The file `id` if `caller` may see it; otherwise 404 exactly like a missing one.
    private func ownedFile(_ id: String, for caller: Principal) async throws -> FileRecord {
        let notFound = PlatformError.notFound("no file \(id)")
        guard Identifier.isValid(id, prefix: "file") else { throw notFound }
        let found = try await metadata.read { db in
            try db.queryFirst(
                "SELECT \(FileRecord.columns) FROM files WHERE id = ? AND partner_id = ? AND (? IS NULL OR user_id = ?)",
                id, caller.partnerID, caller.userID, caller.userID
            ).map { try $0.decode(FileRecord.self) }
        }
        guard let found else { throw notFound }
        return found
    }

    private func storedParts(_ uploadID: String) async throws -> [PartRecord] {
        try await metadata.read { db in
            try db.query(
                "SELECT part_number, size, md5 FROM upload_parts WHERE upload_id = ? ORDER BY part_number",
                [.text(uploadID)]
            ).map { try $0.decode(PartRecord.self) }
        }
    }

    /// Deletes an open upload's part blobs (a direct upload: the store's multipart upload, and an object completed
    /// in the store but not recorded), then its rows (call with the upload's lock held).
    func discard(_ upload: UploadRecord) async throws {
        if let storeUploadID = upload.storeUploadID {
            let store = try directStore(for: upload)
            try await store.abortDirectUpload(try BlobKey(upload.fileKey), uploadID: storeUploadID)
            try await blobs.delete(try BlobKey(upload.fileKey))
        }
        for key in try await blobs.list(prefix: "uploads/\(upload.id)/") { try await blobs.delete(key) }
        try await metadata.write { db in
            try db.execute("DELETE FROM uploads WHERE id = ? AND state = 'open'", upload.id)
        }
    }
}
