import EarshotAPI
public import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One file upload: ``run()`` does the work in the calling task; ``progress`` reports it.
///
/// Run it once. Consume ``progress`` from another task (`async let`, a task group, a SwiftUI `.task`); it ends
/// when ``run()`` returns or throws. Cancelling the task running ``run()`` stops the upload promptly and keeps the
/// resume state, so preparing the same file again later continues where this run stopped.
public final class Upload: Sendable {
    /// The file being uploaded.
    public let fileURL: URL
    /// Its type as sent to the server (`m4a`, `wav`…).
    public let filetype: String
    /// Progress events: bytes on the server out of the file's size, non-decreasing, ending at the total on success.
    public let progress: AsyncStream<UploadProgress>

    private let continuation: AsyncStream<UploadProgress>.Continuation
    private let uploader: FileUploader
    private let stateDirectory: URL
    private let started = Locked(false)

    init(uploader: FileUploader, fileURL: URL, filetype: String, stateDirectory: URL) {
        self.uploader = uploader
        self.fileURL = fileURL
        self.filetype = filetype
        self.stateDirectory = stateDirectory
        (progress, continuation) = AsyncStream.makeStream(of: UploadProgress.self)
    }

    deinit {
        continuation.finish()
    }

    /// Uploads the file (resuming an earlier attempt when possible) and returns the stored file.
    ///
    /// - Throws: ``EarshotError`` (`fileSystem` for an unreadable file, `integrity` when a part keeps arriving
    ///   damaged, server codes such as `UNAUTHORIZED` or `PAYLOAD_TOO_LARGE`), or `CancellationError`.
    public func run() async throws -> UploadResult {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { throw EarshotError(.invalidArgument, "Upload.run() may be called only once") }
        defer { continuation.finish() }
        return try await perform()
    }

    private var client: EarshotClient { uploader.client }

    private func perform() async throws -> UploadResult {
        let (size, modified) = try attributes()
        guard size > 0 else { throw EarshotError(.invalidArgument, "\(fileURL.path) is empty") }
        let baseURL = client.configuration.baseURL.absoluteString
        let journalURL = UploadJournal.location(
            in: stateDirectory, baseURL: baseURL, filePath: fileURL.path, size: size, modified: modified,
            filetype: filetype)

        var resumed = false
        var journal: UploadJournal
        var pendingURLs: [Int: String]
        if let saved = UploadJournal.load(from: journalURL), let status = try await status(of: saved) {
            resumed = true
            journal = saved
            if status.state == "completed" {
                let writer = JournalWriter(journal: journal, url: journalURL)
                return try await complete(writer, size: size, sent: 0, resumed: true, serverParts: status.parts)
            }
            journal.etags = try verifiedParts(status.parts, journal: saved, size: size)
            pendingURLs = journal.partURLs.filter { journal.etags[$0.key] == nil }
            for part in status.pending { pendingURLs[part.partNumber] = part.presignedURL }
        } else {
            try? FileManager.default.removeItem(at: journalURL)
            let plan: UploadPlan = try await client.send(
                .post(APIPath.generatePresignedURLs, json: UploadPlanRequest(filesize: Int(size), filetype: filetype)))
            journal = UploadJournal(
                baseURL: baseURL, filePath: fileURL.path, fileSize: size, modified: modified, filetype: filetype,
                fileID: plan.fileID, uploadID: plan.uploadID, chunkSize: plan.chunkSize,
                partURLs: Dictionary(
                    plan.parts.map { ($0.partNumber, $0.presignedURL) }, uniquingKeysWith: { a, _ in a }))
            pendingURLs = journal.partURLs
        }
        let writer = JournalWriter(journal: journal, url: journalURL)
        try await writer.replace(journal)

        var done = journal.etags.keys.reduce(Int64(0)) { $0 + partSize($1, journal: journal) }
        var doneParts = journal.etags.count
        continuation.yield(
            UploadProgress(
                completedBytes: done, totalBytes: size, completedParts: doneParts, totalParts: journal.partCount))

        let remaining = pendingURLs.keys.sorted()
        let urls = pendingURLs
        let plan = journal
        let limit = uploader.configuration.maxConcurrentParts
        try await withThrowingTaskGroup(of: Int.self) { group in
            var next = 0
            func startNext() {
                guard next < remaining.count else { return }
                let number = remaining[next]
                let url = urls[number]!
                next += 1
                group.addTask { try await self.sendPart(number, url: url, journal: plan, writer: writer) }
            }
            for _ in 0..<min(limit, remaining.count) { startNext() }
            while let finished = try await group.next() {
                done += partSize(finished, journal: journal)
                doneParts += 1
                continuation.yield(
                    UploadProgress(
                        completedBytes: done, totalBytes: size, completedParts: doneParts, totalParts: journal.partCount
                    ))
                startNext()
            }
        }
        return try await complete(writer, size: size, sent: remaining.count, resumed: resumed, serverParts: nil)
    }

    // MARK: Steps

    private func attributes() throws -> (Int64, Double) {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: fileURL.path)
            let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return (size, modified)
        } catch {
            throw EarshotError(.fileSystem, "cannot read \(fileURL.path)", underlying: error)
        }
    }

    /// The server's view of a saved upload, or nil when it no longer exists there (start over).
    private func status(of journal: UploadJournal) async throws -> UploadStatus? {
        do {
            let status = try await client.uploadStatus(journal.uploadID)
            guard status.chunkSize == journal.chunkSize, status.partCount == journal.partCount else { return nil }
            return status
        } catch let error as EarshotError where error.code == .notFound {
            return nil
        }
    }

    /// Parts the server holds that are this file's bytes: known from the journal, or checked by hashing the part
    /// locally (a part whose `PUT` finished just before the process died).
    private func verifiedParts(
        _ parts: [UploadStatus.StoredPart], journal: UploadJournal, size: Int64
    ) throws -> [Int: String] {
        var verified: [Int: String] = [:]
        for part in parts {
            let etag = FilePart.normalize(part.etag)
            if let saved = journal.etags[part.partNumber], FilePart.normalize(saved) == etag {
                verified[part.partNumber] = part.etag
                continue
            }
            let (bytes, _) = try FilePart.read(
                fileURL, number: part.partNumber, chunkSize: journal.chunkSize, fileSize: size)
            if MD5.hex(bytes) == etag { verified[part.partNumber] = part.etag }
        }
        return verified
    }

    private func partSize(_ number: Int, journal: UploadJournal) -> Int64 {
        let start = Int64(number - 1) * Int64(journal.chunkSize)
        return min(Int64(journal.chunkSize), journal.fileSize - start)
    }

    /// PUTs one part with retries; returns its number once the server holds exactly its bytes (``PartPut``).
    private func sendPart(_ number: Int, url: String, journal: UploadJournal, writer: JournalWriter) async throws -> Int
    {
        let (body, checksum) = try FilePart.read(
            fileURL, number: number, chunkSize: journal.chunkSize, fileSize: journal.fileSize)
        let policy = uploader.configuration.retry
        var url = url
        var resigned = false
        var attempt = 1
        while true {
            try Task.checkCancellation()
            do {
                let etag = try await PartPut.send(body, checksum: checksum, to: url, part: number, client: client)
                try await writer.record(part: number, etag: etag)
                return number
            } catch let error as EarshotError where error.code == .forbidden && !resigned {
                // An expired part URL: ask the server for a fresh one, once.
                resigned = true
                let status = try await client.uploadStatus(journal.uploadID)
                guard let fresh = status.pending.first(where: { $0.partNumber == number }) else { throw error }
                url = fresh.presignedURL
            } catch let error as EarshotError
                where (error.isTransient || error.code == .integrity) && attempt < policy.maxAttempts
            {
                try await policy.pause(afterAttempt: attempt)
                attempt += 1
            }
        }
    }

    private func complete(
        _ writer: JournalWriter, size: Int64, sent: Int, resumed: Bool, serverParts: [UploadStatus.StoredPart]?
    ) async throws -> UploadResult {
        let journal = await writer.journal
        let parts =
            serverParts?.map { CompleteUploadRequest.Part(partNumber: $0.partNumber, etag: $0.etag) }
            ?? journal.etags.sorted { $0.key < $1.key }.map {
                CompleteUploadRequest.Part(partNumber: $0.key, etag: $0.value)
            }
        let request = CompleteUploadRequest(
            fileID: journal.fileID, uploadID: journal.uploadID, partList: parts, filetype: journal.filetype)
        // Completing again returns the same file, so this POST is safe to retry.
        let response: CompleteUploadResponse = try await client.send(
            .post(APIPath.completeUpload, json: request, idempotent: true))
        await writer.remove()
        return UploadResult(
            fileID: response.fileID, downloadURL: response.downloadURL, uploadID: journal.uploadID, size: size,
            partsSent: sent, resumed: resumed)
    }
}
