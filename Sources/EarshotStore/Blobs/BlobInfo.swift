public import EarshotCrypto
public import Foundation

/// What a blob store knows about a stored blob.
public struct BlobInfo: Sendable, Hashable {
    /// The blob's key.
    public let key: BlobKey
    /// Size in bytes.
    public let size: Int64
    /// SHA-256 of the whole content.
    public let sha256: Digest
    /// MD5 of the whole content when the backend recorded it (S3-style ETags of single-part objects).
    public let md5: Digest?
    /// When the content was last written.
    public let lastModified: Date

    public init(key: BlobKey, size: Int64, sha256: Digest, md5: Digest?, lastModified: Date) {
        self.key = key
        self.size = size
        self.sha256 = sha256
        self.md5 = md5
        self.lastModified = lastModified
    }
}

/// Checks applied while a blob is written; a mismatch discards the write.
public struct BlobWriteOptions: Sendable, Hashable {
    /// When set, the content's SHA-256 must equal this, or the write fails with
    /// ``StoreError/Code-swift.struct/corrupted`` and nothing is stored.
    public var expectedSHA256: Digest?
    /// When set, the content's MD5 must equal this (a `Content-MD5` header, a multipart ETag).
    public var expectedMD5: Digest?
    /// When set, the content must be exactly this many bytes.
    public var expectedSize: Int64?
    /// Digests the caller computed over a file while writing it (e.g. an HTTP body spooled to disk), for
    /// ``BlobStore/put(_:movingFile:options:)``: a backend that can take the file over without copying records these
    /// instead of reading the whole file again. The file's size is still checked against ``KnownDigests/size``.
    public var knownDigests: KnownDigests?
    /// For ``BlobStore/compose(_:into:options:)``: the SHA-256 of the concatenated parts, computed by the caller
    /// as the parts arrived, after checking that every part is still the one it digested. A backend that can
    /// assemble without reading the bytes (the file system store, with `copy_file_range`) records this as the
    /// result's digest and no MD5; one that reads the bytes anyway checks it like ``expectedSHA256``.
    public var composedSHA256: Digest?

    public init(
        expectedSHA256: Digest? = nil, expectedMD5: Digest? = nil, expectedSize: Int64? = nil,
        knownDigests: KnownDigests? = nil, composedSHA256: Digest? = nil
    ) {
        self.expectedSHA256 = expectedSHA256
        self.expectedMD5 = expectedMD5
        self.expectedSize = expectedSize
        self.knownDigests = knownDigests
        self.composedSHA256 = composedSHA256
    }

    /// Size and digests of a file, computed by whoever wrote it.
    public struct KnownDigests: Sendable, Hashable {
        public var size: Int64
        public var sha256: Digest
        public var md5: Digest

        public init(size: Int64, sha256: Digest, md5: Digest) {
            self.size = size
            self.sha256 = sha256
            self.md5 = md5
        }
    }

    /// No checks.
    public static let none = BlobWriteOptions()

    /// Throws `.corrupted` when `size`/`sha256`/`md5` contradict an expectation (every backend checks a write with
    /// this before it makes the write visible).
    public func verify(key: BlobKey, size: Int64, sha256: Digest, md5: Digest?) throws(StoreError) {
        if let expectedSize, expectedSize != size {
            throw StoreError(.corrupted, "blob \(key): expected \(expectedSize) bytes, received \(size)")
        }
        if let expectedSHA256, expectedSHA256 != sha256 {
            throw StoreError(.corrupted, "blob \(key): SHA-256 is \(sha256.hex), expected \(expectedSHA256.hex)")
        }
        if let composedSHA256, composedSHA256 != sha256 {
            throw StoreError(
                .corrupted, "blob \(key): SHA-256 is \(sha256.hex), but its parts digested to \(composedSHA256.hex)")
        }
        if let expectedMD5, let md5, expectedMD5 != md5 {
            throw StoreError(.corrupted, "blob \(key): MD5 is \(md5.hex), expected \(expectedMD5.hex)")
        }
        if let known = knownDigests, known.size != size || known.sha256 != sha256 || (md5 != nil && known.md5 != md5) {
            throw StoreError(.corrupted, "blob \(key): the content differs from the digests its writer reported")
        }
    }
}

/// The content of a blob (or of a byte range of it), delivered as a stream of chunks.
///
/// Chunks are read on demand as the stream is iterated; dropping the stream before the end releases the
/// underlying file or connection. Iterate it from one task only.
public struct BlobContent: Sendable {
    /// The blob's key.
    public let key: BlobKey
    /// Size of the whole blob in bytes (for `Content-Range: bytes a-b/size`).
    public let size: Int64
    /// The bytes this content delivers: the requested range, or `0..<size`.
    public let range: Range<Int64>
    /// The bytes of ``range``, in order.
    public let chunks: AsyncThrowingStream<[UInt8], any Error>

    public init(key: BlobKey, size: Int64, range: Range<Int64>, chunks: AsyncThrowingStream<[UInt8], any Error>) {
        self.key = key
        self.size = size
        self.range = range
        self.chunks = chunks
    }

    /// Collects every chunk into one array. For small blobs and tests: a large blob is better streamed.
    public func collect() async throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(range.count))
        for try await chunk in chunks { bytes += chunk }
        return bytes
    }
}
