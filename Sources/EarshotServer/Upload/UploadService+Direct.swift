import EarshotAPI
import EarshotCore
import EarshotCrypto
import EarshotStore
import Foundation

/// Direct uploads (`upload-direct`, S3): the plan's part URLs are the object store's presigned `UploadPart` URLs, so
/// the bytes go from the client to the bucket and never through this server. The store keeps the parts (its
/// `ListParts` is the upload's status), `complete-upload` passes the client's ETags to `CompleteMultipartUpload`,
/// which assembles the object at its final key `files/<file id>`, and abort and the sweep abort the store's upload.
///
/// Before `files` records the object, the server verifies it: its size, its ETag (the MD5 of the parts' MD5s, so
/// the store assembled exactly the parts the client listed), and its SHA-256, which the server computes by reading
/// the object back (the client never sent the bytes through here) — see docs/decisions/0010-direct-upload-verification.md.
extension UploadService {
    /// The blob store clients upload straight into, for new uploads: nil unless `upload-direct` is on, the store
    /// can take direct uploads, and the chunk size is at least its smallest part.
    var directStore: (any DirectUploadBlobStore)? {
        guard configuration.direct, let store = blobs as? any DirectUploadBlobStore,
            configuration.chunkSize >= store.minimumPartSize
        else { return nil }
        return store
    }

    /// The store that holds `upload`'s parts (it was planned as a direct upload).
    func directStore(for upload: UploadRecord) throws -> any DirectUploadBlobStore {
        guard let store = blobs as? any DirectUploadBlobStore else {
            throw PlatformError.conflict(
                "upload \(upload.id) was started in an object store this server no longer uses (blob-store "
                    + "changed); start a new upload")
        }
        return store
    }

    /// The parts the object store holds for `upload`, by number (ETags normalised to MD5 hex, as `upload_parts`):
    /// of a part sent more than once, the version whose ETag is `preferred[number]` when the store still has it,
    /// else the newest. Empty when the store no longer knows the upload (completed there, not yet recorded here).
    func directParts(_ upload: UploadRecord, preferred: [Int: String] = [:]) async throws -> [Int: PartRecord] {
        guard let storeUploadID = upload.storeUploadID else { return [:] }
        let parts: [DirectUploadPart]
        do {
            parts = try await directStore(for: upload).listParts(try BlobKey(upload.fileKey), uploadID: storeUploadID)
        } catch let error as StoreError where error.code == .notFound {
            return [:]
        }
        var byNumber: [Int: PartRecord] = [:]
        for part in parts {  // newest first within a number
            let record = PartRecord(partNumber: part.number, size: Int(part.size), md5: Self.normalizedETag(part.etag))
            if byNumber[part.number] == nil || preferred[part.number].map(Self.normalizedETag) == record.md5 {
                byNumber[part.number] = record
            }
        }
        return byNumber
    }

    /// When the newest part of a direct upload reached the store; nil without parts (or when the store no longer
    /// knows the upload).
    func lastDirectActivity(_ upload: UploadRecord) async throws -> Date? {
        guard let storeUploadID = upload.storeUploadID else { return nil }
        do {
            let parts = try await directStore(for: upload).listParts(
                try BlobKey(upload.fileKey), uploadID: storeUploadID)
            return parts.compactMap(\.lastModified).max()
        } catch let error as StoreError where error.code == .notFound {
            return nil
        }
    }

    /// `complete-upload` of a direct upload (with the upload's lock held): the client's part list is checked
    /// against the store's `ListParts` (a clear 400 naming the part, as for parts sent through the server), the
    /// store assembles the object, and the object is verified before `files` records it.
    func completeDirect(
        _ upload: UploadRecord, _ request: CompleteUploadRequest, for caller: Principal
    ) async throws -> CompleteUploadResponse {
        let store = try directStore(for: upload)
        let key = try BlobKey(upload.fileKey)
        let storeUploadID = upload.storeUploadID!
        var wanted: [Int: String] = [:]
        for entry in request.partList { wanted[entry.partNumber] = entry.etag }
        let stored = try await directParts(upload, preferred: wanted)
        let assembledEarlier = stored.isEmpty ? (try? await store.objectSummary(key)) != nil : false
        if !assembledEarlier {
            // The store still has the upload (or neither it nor the object exists: check() names the missing part).
            try Self.check(request.partList, against: stored, upload: upload)
            let parts = (1...upload.partCount).map { number in
                DirectUploadPart(number: number, size: Int64(stored[number]!.size), etag: stored[number]!.etag)
            }
            do {
                _ = try await store.completeDirectUpload(key, uploadID: storeUploadID, parts: parts)
            } catch let error as StoreError where error.code == .invalidArgument {
                throw PlatformError.conflict(
                    "the object store refused to assemble upload \(upload.id) (\(error.message)); PUT the parts "
                        + "again (GET \(APIPath.uploadParts) lists them), then complete")
            } catch let error as StoreError where error.code == .notFound {
                // Completed meanwhile by an earlier attempt whose answer was lost: verified below.
                logger.notice(
                    "direct upload already assembled by the store",
                    metadata: ["upload": upload.id, "error": "\(error.message)"])
            }
        } else {
            // The store assembled it on an earlier attempt that did not get to record it: the client's list must
            // still name every part (checked against the object's ETag below).
            try Self.checkListShape(request.partList, upload: upload)
            logger.notice("completing a direct upload the store had already assembled", metadata: ["upload": upload.id])
        }
        let etags = (1...upload.partCount).map { number in
            stored[number]?.md5 ?? Self.normalizedETag(request.partList.first { $0.partNumber == number }!.etag)
        }
        let sha256 = try await verifyDirectObject(upload, key: key, store: store, partMD5s: etags)
        let at = milliseconds(now())
        try await metadata.write { db in
            try Self.insertFile(db, id: upload.fileID, upload: upload, sha256: sha256.hex, blobKey: key, at: at)
            try db.execute("UPDATE uploads SET state = 'completed', updated_at = ? WHERE id = ?", at, upload.id)
        }
        logger.info(
            "upload completed", metadata: ["upload": upload.id, "file": upload.fileID, "size": "\(upload.filesize)"])
        return CompleteUploadResponse(
            downloadURL: try await downloadURL(fileID: upload.fileID, for: caller.issuer), fileID: upload.fileID)
    }

    /// Checks the assembled object: size = the plan's `filesize`, ETag = the MD5 of the parts' MD5s and `-N` (the
    /// store assembled exactly these parts), and returns its SHA-256, computed by reading it back. A mismatch deletes
    /// the object and the upload (nothing half-recorded) and tells the client to upload again.
    private func verifyDirectObject(
        _ upload: UploadRecord, key: BlobKey, store: any DirectUploadBlobStore, partMD5s: [String]
    ) async throws -> Digest {
        let object: DirectUploadObject
        do {
            object = try await store.objectSummary(key)
        } catch let error as StoreError where error.code == .notFound {
            try await discard(upload)
            throw PlatformError.conflict(
                "the parts of upload \(upload.id) are no longer in the object store (aborted or expired there); start "
                    + "a new upload")
        }
        var joined: [UInt8] = []
        for md5 in partMD5s { joined += Digest(hex: md5)?.bytes ?? [] }
        let expectedETag = DigestAlgorithm.md5.hash(joined).hex + "-\(partMD5s.count)"
        let etag = Self.normalizedETag(object.etag)
        // Some S3 servers give a one-part object its part's MD5 as ETag.
        let etagMatches = etag == expectedETag || (partMD5s.count == 1 && etag == partMD5s[0])
        guard object.size == Int64(upload.filesize), etagMatches else {
            logger.error(
                "direct upload assembled into an unexpected object",
                metadata: [
                    "upload": upload.id, "size": "\(object.size)", "expected_size": "\(upload.filesize)",
                    "etag": "\(object.etag)", "expected_etag": "\(expectedETag)",
                ])
            try await discard(upload)
            throw PlatformError.conflict(
                "the object store assembled upload \(upload.id) into \(object.size) bytes with ETag \(object.etag), "
                    + "not the \(upload.filesize) bytes of the listed parts (\"\(expectedETag)\"); it was discarded: "
                    + "upload the file again")
        }
        let started = ContinuousClock.now
        let (digest, count) = try await Self.sha256(of: key, size: object.size, in: blobs)
        let elapsed = ContinuousClock.now - started
        guard count == object.size else {
            try await discard(upload)
            throw PlatformError.conflict(
                "reading upload \(upload.id) back from the object store gave \(count) of \(object.size) bytes; it "
                    + "was discarded: upload the file again")
        }
        let seconds = elapsed.seconds
        logger.info(
            "direct upload verified",
            metadata: [
                "upload": upload.id, "bytes": "\(count)", "sha256_read_ms": "\(Int(seconds * 1000))",
                "mib_per_s": "\(seconds > 0 ? Int(Double(count) / 1_048_576 / seconds) : 0)",
            ])
        return digest
    }

    /// The SHA-256 and length of the blob `key`, read in ranges of 8 MiB with up to 4 ranges in flight (hashed in
    /// order), so the store's latency overlaps the hashing.
    static func sha256(of key: BlobKey, size: Int64, in blobs: any BlobStore) async throws -> (Digest, Int64) {
        let step: Int64 = 8 << 20
        let window = 4
        let ranges = stride(from: Int64(0), to: size, by: Int(step)).map { $0..<min(size, $0 + step) }
        var digest = ResumableSHA256()
        var count: Int64 = 0
        try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            var next = 0
            var ready: [Int: [UInt8]] = [:]
            var wanted = 0
            func start() {
                guard next < ranges.count else { return }
                let (index, range) = (next, ranges[next])
                next += 1
                group.addTask {
                    var bytes: [UInt8] = []
                    bytes.reserveCapacity(Int(range.count))
                    for try await chunk in try await blobs.get(key, range: range).chunks { bytes += chunk }
                    return (index, bytes)
                }
            }
            for _ in 0..<window { start() }
            while let (index, bytes) = try await group.next() {
                ready[index] = bytes
                while let bytes = ready.removeValue(forKey: wanted) {
                    digest.update(bytes)
                    count += Int64(bytes.count)
                    wanted += 1
                    start()
                }
            }
        }
        return (digest.finalize(), count)
    }

    /// Checks that `list` names every part 1…N exactly once (used when the store no longer lists the parts).
    static func checkListShape(_ list: [CompleteUploadRequest.Part], upload: UploadRecord) throws(PlatformError) {
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
        guard seen.count == upload.partCount else {
            let missing = (1...upload.partCount).first { !seen.contains($0) }!
            throw .invalidArgument("part \(missing) is missing from part_list; list every part 1-\(upload.partCount)")
        }
    }

    /// Aborts the store's multipart uploads under `files/` that no open upload owns and that started before `cutoff`
    /// (milliseconds): left by a crash between starting one and recording it, or by a deleted row.
    func sweepDirectUploads(olderThan cutoff: Int64) async throws {
        guard let store = blobs as? any DirectUploadBlobStore else { return }
        let inStore = try await store.listDirectUploads(prefix: "files/")
        guard !inStore.isEmpty else { return }
        let owned = try await metadata.read { db in
            Set(
                try db.query("SELECT store_upload_id FROM uploads WHERE state = 'open' AND store_upload_id IS NOT NULL")
                    .map { try $0.decode("store_upload_id", as: String.self) })
        }
        var aborted = 0
        for upload in inStore where !owned.contains(upload.uploadID) && milliseconds(upload.initiated) < cutoff {
            guard let key = try? BlobKey(upload.key) else { continue }
            try await store.abortDirectUpload(key, uploadID: upload.uploadID)
            aborted += 1
        }
        if aborted > 0 { logger.notice("orphaned object-store uploads aborted", metadata: ["count": "\(aborted)"]) }
    }
}
