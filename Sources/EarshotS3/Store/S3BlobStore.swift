internal import EarshotCrypto
public import EarshotStore
public import Foundation

#if canImport(FoundationNetworking)
    internal import FoundationNetworking
#endif

/// A ``BlobStore`` in one bucket of an S3-compatible object store (AWS S3, SeaweedFS, Ceph RGW…).
///
/// Writes are spooled to a temporary file first, so that the object's SHA-256 (signed as the payload hash, and kept
/// as `x-amz-meta-sha256`) and MD5 (`Content-MD5`) are known before the first byte is sent: the store itself rejects
/// a body damaged on the way, and S3's PUT is atomic, so a reader sees the old or the new content, never a part.
/// Blobs above ``Configuration/partSize`` go up as a native multipart upload (aborted on any failure). Reads stream
/// ranged GETs of at most `partSize` bytes. Transient failures (network, 5xx, `SlowDown`) are retried with
/// exponential backoff. Safe to use from any task; cancelling a write leaves nothing under the key.
public final class S3BlobStore: PresigningBlobStore {
    /// Where the bucket is and how to reach it.
    public struct Configuration: Sendable {
        /// `http(s)://host:port` of the S3 endpoint (path-style requests: `/bucket/key`).
        public var endpoint: URL
        public var bucket: String
        public var credentials: SignatureV4.Credentials
        /// The signing region (`us-east-1` unless the service says otherwise).
        public var region = "us-east-1"
        /// The largest single PUT and the size of multipart parts and of ranged reads (S3's minimum part: 5 MiB).
        public var partSize = 8 * 1024 * 1024
        /// Tries per request before a transient failure is reported (`.unavailable`).
        public var attempts = 4
        /// The first retry's delay; each further retry doubles it.
        public var retryDelay: Duration = .milliseconds(100)
        /// Where writes are spooled before they are sent.
        public var temporaryDirectory = URL(fileURLWithPath: NSTemporaryDirectory())

        public init(endpoint: URL, bucket: String, credentials: SignatureV4.Credentials) {
            self.endpoint = endpoint
            self.bucket = bucket
            self.credentials = credentials
        }
    }

    public let configuration: Configuration
    let client: S3Client

    /// A store over `configuration`'s bucket. Makes no request: call ``createBucketIfMissing()`` or ``ping()``.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        let session = URLSession(configuration: .ephemeral)
        client = S3Client(
            endpoint: configuration.endpoint, bucket: configuration.bucket,
            signer: SignatureV4(credentials: configuration.credentials, region: configuration.region),
            session: session, attempts: max(1, configuration.attempts), retryDelay: configuration.retryDelay)
    }

    /// Creates the bucket unless it exists (and is ours).
    public func createBucketIfMissing() async throws {
        let head = try await client.send("HEAD", what: "head bucket \(configuration.bucket)")
        if head.status == 200 { return }
        guard head.status == 404 else { throw client.failure(head, "head bucket \(configuration.bucket)") }
        let made = try await client.send("PUT", what: "create bucket \(configuration.bucket)")
        guard made.status == 200 || made.errorCode == "BucketAlreadyOwnedByYou" else {
            throw client.failure(made, "create bucket \(configuration.bucket)")
        }
    }

    // MARK: Writes

    @discardableResult
    public func put<Chunks: AsyncSequence>(
        _ key: BlobKey, from chunks: Chunks, options: BlobWriteOptions
    ) async throws -> BlobInfo where Chunks.Element: ContiguousBytes & Sendable {
        let spool = try Spool(in: configuration.temporaryDirectory)
        defer { spool.remove() }
        for try await chunk in chunks {
            try Task.checkCancellation()
            try chunk.withUnsafeBytes { try spool.write($0) }
        }
        let sealed = try spool.seal()
        try options.verify(key: key, size: sealed.size, sha256: sealed.sha256, md5: sealed.md5)
        return try await upload(key, spool: spool, sealed: sealed)
    }

    @discardableResult
    public func put(_ key: BlobKey, movingFile file: URL, options: BlobWriteOptions) async throws -> BlobInfo {
        let spool = try Spool(adopting: file)
        defer { spool.remove() }
        let sealed = try spool.seal()
        try options.verify(key: key, size: sealed.size, sha256: sealed.sha256, md5: sealed.md5)
        return try await upload(key, spool: spool, sealed: sealed)
    }

    @discardableResult
    public func compose(_ parts: [BlobKey], into key: BlobKey, options: BlobWriteOptions) async throws -> BlobInfo {
        guard !parts.isEmpty else { throw StoreError(.invalidArgument, "compose \(key): no parts") }
        guard !parts.contains(key) else {
            throw StoreError(.invalidArgument, "compose \(key): the key is one of its parts")
        }
        let spool = try Spool(in: configuration.temporaryDirectory)
        defer { spool.remove() }
        for part in parts {
            let content = try await get(part, range: nil)
            for try await chunk in content.chunks { try chunk.withUnsafeBytes { try spool.write($0) } }
        }
        let sealed = try spool.seal()
        try options.verify(key: key, size: sealed.size, sha256: sealed.sha256, md5: sealed.md5)
        return try await upload(key, spool: spool, sealed: sealed)
    }

    private func upload(_ key: BlobKey, spool: Spool, sealed: Spool.Sealed) async throws -> BlobInfo {
        let metadata = [("x-amz-meta-sha256", sealed.sha256.hex), ("x-amz-meta-md5", sealed.md5.hex)]
        if sealed.size <= Int64(configuration.partSize) {
            let body = try spool.read(0..<sealed.size)
            let answer = try await client.send(
                "PUT", key: key.rawValue,
                headers: metadata + [("content-md5", Data(sealed.md5.bytes).base64EncodedString())], body: body,
                what: "put \(key)")
            guard answer.status == 200 else { throw client.failure(answer, "put \(key)") }
        } else {
            try await multipartUpload(key, spool: spool, sealed: sealed, metadata: metadata)
        }
        return BlobInfo(key: key, size: sealed.size, sha256: sealed.sha256, md5: sealed.md5, lastModified: Date())
    }

    private func multipartUpload(
        _ key: BlobKey, spool: Spool, sealed: Spool.Sealed, metadata: [(String, String)]
    ) async throws {
        let created = try await client.send(
            "POST", key: key.rawValue, query: [("uploads", "")], headers: metadata, what: "start upload of \(key)")
        guard created.status == 200, let uploadID = XMLText.first("UploadId", in: created.body) else {
            throw client.failure(created, "start upload of \(key)")
        }
        do {
            var etags: [String] = []
            var offset: Int64 = 0
            while offset < sealed.size {
                let end = min(sealed.size, offset + Int64(configuration.partSize))
                let body = try spool.read(offset..<end)
                let number = etags.count + 1
                let answer = try await client.send(
                    "PUT", key: key.rawValue, query: [("partNumber", String(number)), ("uploadId", uploadID)],
                    headers: [("content-md5", Data(DigestAlgorithm.md5.hash(body).bytes).base64EncodedString())],
                    body: body, what: "upload part \(number) of \(key)")
                guard answer.status == 200, let etag = answer.headers["etag"] else {
                    throw client.failure(answer, "upload part \(number) of \(key)")
                }
                etags.append(etag)
                offset = end
            }
            let answer = try await completeMultipart(key.rawValue, uploadID: uploadID, etags: etags)
            guard answer.status == 200, XMLText.first("Code", in: answer.body) == nil else {
                throw client.failure(answer, "complete upload of \(key)")
            }
        } catch {
            _ = try? await client.send(
                "DELETE", key: key.rawValue, query: [("uploadId", uploadID)], what: "abort upload of \(key)")
            throw error
        }
    }

    /// `CompleteMultipartUpload` of `etags` (part 1 first).
    func completeMultipart(_ key: String, uploadID: String, etags: [String]) async throws -> S3Client.Response {
        let parts = etags.enumerated().map {
            "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(XMLText.escape($0.element))</ETag></Part>"
        }
        let xml = "<CompleteMultipartUpload>\(parts.joined())</CompleteMultipartUpload>"
        return try await client.send(
            "POST", key: key, query: [("uploadId", uploadID)], body: Data(xml.utf8), what: "complete upload of \(key)")
    }

    // MARK: Reads

    public func get(_ key: BlobKey, range: Range<Int64>?) async throws -> BlobContent {
        // The size alone: objects clients uploaded directly carry no x-amz-meta-sha256 (the files table has it).
        let info = try await objectSummary(key)
        let wanted: Range<Int64>
        if let range {
            guard range.lowerBound <= info.size, range.lowerBound >= 0 else {
                throw StoreError(
                    .invalidRange, "blob \(key): range starts at \(range.lowerBound) of \(info.size) bytes")
            }
            wanted = range.lowerBound..<min(range.upperBound, info.size)
        } else {
            wanted = 0..<info.size
        }
        let client = client
        let step = Int64(configuration.partSize)
        let chunks = AsyncThrowingStream<[UInt8], any Error> { continuation in
            let reader = Task {
                var offset = wanted.lowerBound
                do {
                    while offset < wanted.upperBound {
                        let end = min(wanted.upperBound, offset + step)
                        let answer = try await client.send(
                            "GET", key: key.rawValue, headers: [("range", "bytes=\(offset)-\(end - 1)")],
                            what: "get \(key)")
                        guard answer.status == 206 || answer.status == 200 else {
                            throw client.failure(answer, "get \(key)")
                        }
                        let bytes =
                            answer.status == 200
                            ? answer.body.dropFirst(Int(offset)).prefix(Int(end - offset)) : answer.body[...]
                        guard bytes.count == Int(end - offset) else {
                            throw StoreError(.io, "S3 get \(key): \(bytes.count) bytes for \(offset)..<\(end)")
                        }
                        continuation.yield(Array(bytes))
                        offset = end
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
        return BlobContent(key: key, size: info.size, range: wanted, chunks: chunks)
    }

    public func info(_ key: BlobKey) async throws -> BlobInfo {
        let answer = try await client.send("HEAD", key: key.rawValue, what: "head \(key)")
        guard answer.status == 200 else {
            if answer.status == 404 { throw StoreError(.notFound, "no blob \(key)") }
            throw client.failure(answer, "head \(key)")
        }
        guard let size = answer.headers["content-length"].flatMap({ Int64($0) }),
            let sha256 = answer.headers["x-amz-meta-sha256"].flatMap({ Digest(hex: $0) })
        else {
            throw StoreError(.corrupted, "S3 object \(key) has no size or x-amz-meta-sha256 (not written by Earshot)")
        }
        let md5 = answer.headers["x-amz-meta-md5"].flatMap { Digest(hex: $0) }
        let modified = answer.headers["last-modified"].flatMap(Self.httpDate) ?? Date()
        return BlobInfo(key: key, size: size, sha256: sha256, md5: md5, lastModified: modified)
    }

    public func exists(_ key: BlobKey) async throws -> Bool {
        let answer = try await client.send("HEAD", key: key.rawValue, what: "head \(key)")
        if answer.status == 404 { return false }
        guard answer.status == 200 else { throw client.failure(answer, "head \(key)") }
        return true
    }

    public func delete(_ key: BlobKey) async throws {
        let answer = try await client.send("DELETE", key: key.rawValue, what: "delete \(key)")
        guard answer.status == 204 || answer.status == 200 || answer.status == 404 else {
            throw client.failure(answer, "delete \(key)")
        }
    }

    public func list(prefix: String) async throws -> [BlobKey] {
        if !prefix.isEmpty, !BlobKey.isValid(prefix), !BlobKey.isValid(prefix + "x") {
            throw StoreError(.invalidKey, "no key can start with \"\(prefix)\"")
        }
        var keys: [BlobKey] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix)]
            if let token { query.append(("continuation-token", token)) }
            let answer = try await client.send("GET", query: query, what: "list \(prefix)")
            guard answer.status == 200 else { throw client.failure(answer, "list \(prefix)") }
            for name in XMLText.all("Key", in: answer.body) {
                if let key = try? BlobKey(name) { keys.append(key) }
            }
            token =
                XMLText.first("IsTruncated", in: answer.body) == "true"
                ? XMLText.first("NextContinuationToken", in: answer.body) : nil
        } while token != nil
        return keys.sorted()
    }

    public func ping() async throws {
        let answer = try await client.send("HEAD", what: "head bucket \(configuration.bucket)")
        guard answer.status == 200 else {
            throw StoreError(
                .unavailable,
                "S3 bucket \(configuration.bucket) at \(configuration.endpoint.absoluteString): HTTP \(answer.status)"
                    + (answer.status == 403 ? " (access denied: check the credentials)" : ""))
        }
    }

    /// Always nil: objects are not local files (stream ``get(_:range:)`` or presign a URL).
    public func localFile(for key: BlobKey) async throws -> URL? { nil }

    // MARK: Presigned URLs

    /// A URL anyone may `GET` the blob with (Range requests included) for `expires`, answered with `contentType` and
    /// `contentDisposition` when given (S3's `response-content-type`…); the store checks the signature (a changed
    /// URL is refused with 403).
    public func presignedGet(
        _ key: BlobKey, expires: Duration, contentType: String? = nil, contentDisposition: String? = nil
    ) -> URL {
        var query: [(String, String)] = []
        if let contentType { query.append(("response-content-type", contentType)) }
        if let contentDisposition { query.append(("response-content-disposition", contentDisposition)) }
        return client.signer.presignedURL(
            method: "GET", base: configuration.endpoint, path: client.path(key.rawValue), query: query,
            expires: expires, date: Date())
    }

    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
