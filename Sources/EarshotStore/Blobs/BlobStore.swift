public import Foundation

/// Where Earshot keeps audio and other large content, addressed by ``BlobKey``.
///
/// Backends: ``FileSystemBlobStore`` (embedded default) and, for scale, an S3-compatible store. Every write is
/// atomic: a reader sees the old content or the new content under a key, never a partial one, and an
/// interrupted, cancelled or failed write leaves nothing behind under the key. Writes compute SHA-256 and
/// MD5 incrementally while the bytes pass through.
///
/// Serving content: call ``localFile(for:)`` first; a backend with local files returns a path the HTTP layer
/// can `sendfile`, others return nil and the caller streams ``get(_:range:)`` (or redirects to a presigned URL).
///
/// All methods are safe to call concurrently from any task and do their blocking I/O off the Swift
/// cooperative pool. Cancelling the calling task cancels a write (nothing is stored).
public protocol BlobStore: Sendable {
    /// Stores the bytes of `chunks` under `key`, replacing any blob there once every byte is durable.
    ///
    /// - Throws: ``StoreError`` `.corrupted` when `options` expectations fail, `.conflict` when the key clashes
    ///   with the layout of existing keys, `.io`; `CancellationError`; any error `chunks` throws. In every
    ///   failure case nothing is stored under `key`.
    @discardableResult
    func put<Chunks: AsyncSequence>(
        _ key: BlobKey, from chunks: Chunks, options: BlobWriteOptions
    ) async throws -> BlobInfo where Chunks.Element: ContiguousBytes & Sendable

    /// Stores a complete file (already written by the caller, e.g. an HTTP body spooled to disk) under `key`
    /// and removes it from `file`. A backend moves it without copying when it can (same file system).
    @discardableResult
    func put(_ key: BlobKey, movingFile file: URL, options: BlobWriteOptions) async throws -> BlobInfo

    /// Concatenates the blobs `parts`, in order, into a new blob `key` (multipart upload completion).
    ///
    /// Streams, computes the digests of the result, and is atomic like ``put(_:from:options:)``. The parts are
    /// left in place; delete them once the result is recorded. `key` may not be one of `parts`. With
    /// ``BlobWriteOptions/composedSHA256`` a backend that can assemble without reading (the file system store)
    /// does so and records that digest (and no MD5); the others check it.
    ///
    /// - Throws: ``StoreError`` `.notFound` naming a missing part, `.invalidArgument` for an empty list.
    @discardableResult
    func compose(_ parts: [BlobKey], into key: BlobKey, options: BlobWriteOptions) async throws -> BlobInfo

    /// Streams the blob, or the bytes of `range` (clamped to the blob's end) when given.
    ///
    /// - Throws: ``StoreError`` `.notFound`, `.invalidRange` when `range` starts beyond the end of the blob.
    func get(_ key: BlobKey, range: Range<Int64>?) async throws -> BlobContent

    /// Size, digests and modification time of a blob. Throws ``StoreError/Code-swift.struct/notFound``.
    func info(_ key: BlobKey) async throws -> BlobInfo

    /// True when a blob is stored under `key`.
    func exists(_ key: BlobKey) async throws -> Bool

    /// Removes the blob under `key`; succeeds when there is none.
    func delete(_ key: BlobKey) async throws

    /// The keys that start with `prefix` (a string prefix, as in S3: `uploads/file_x/`), sorted.
    ///
    /// - Throws: ``StoreError/Code-swift.struct/invalidKey`` when `prefix` cannot begin any valid key.
    func list(prefix: String) async throws -> [BlobKey]

    /// Checks that the store can serve reads and writes now (readiness probes): the filesystem backend checks
    /// that its root and temporary directories are writable directories; a remote backend asks the service.
    ///
    /// - Throws: ``StoreError`` `.unavailable` saying what is wrong.
    func ping() async throws

    /// A local file holding the blob, for zero-copy serving (`sendfile`), or nil when the backend has none.
    ///
    /// The file is replaced atomically by later writes: open it once and use that descriptor (its size from
    /// `fstat`), rather than re-opening the path. Throws ``StoreError/Code-swift.struct/notFound``.
    func localFile(for key: BlobKey) async throws -> URL?
}

extension BlobStore {
    /// Stores the bytes of `chunks` under `key` without expectations.
    @discardableResult
    public func put<Chunks: AsyncSequence>(_ key: BlobKey, from chunks: Chunks) async throws -> BlobInfo
    where Chunks.Element: ContiguousBytes & Sendable {
        try await put(key, from: chunks, options: .none)
    }

    /// Stores `bytes` under `key` (small content: settings, fixtures, tests).
    @discardableResult
    public func put(_ key: BlobKey, bytes: [UInt8], options: BlobWriteOptions = .none) async throws -> BlobInfo {
        try await put(key, from: SingleChunk(bytes: bytes), options: options)
    }

    /// Stores a file under `key`, moving it when possible.
    @discardableResult
    public func put(_ key: BlobKey, movingFile file: URL) async throws -> BlobInfo {
        try await put(key, movingFile: file, options: .none)
    }

    /// Concatenates `parts` into `key`.
    @discardableResult
    public func compose(_ parts: [BlobKey], into key: BlobKey) async throws -> BlobInfo {
        try await compose(parts, into: key, options: .none)
    }

    /// Streams the whole blob.
    public func get(_ key: BlobKey) async throws -> BlobContent {
        try await get(key, range: nil)
    }
}

/// An async sequence of exactly one chunk.
struct SingleChunk: AsyncSequence, Sendable {
    let bytes: [UInt8]

    struct AsyncIterator: AsyncIteratorProtocol {
        var bytes: [UInt8]?
        mutating func next() async -> [UInt8]? {
            defer { bytes = nil }
            return bytes
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes) }
}
