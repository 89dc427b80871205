internal import Dispatch
public import EarshotCore
public import EarshotCrypto

#if canImport(Glibc)
    internal import Glibc
#endif

/// A request body that was streamed to disk by ``BodyMode/file(limit:directory:)``.
public struct UploadedFile: Sendable {
    /// Absolute or directory-relative path of the temporary file (mode 0600, not fsynced).
    public let path: String
    /// Number of body bytes written.
    public let byteCount: Int
    /// SHA-256 of the body.
    public let sha256: Digest
    /// MD5 of the body (S3-style ETags).
    public let md5: Digest
    /// CRC-32 of the body, when the request sent `x-amz-checksum-crc32` (checked before the handler runs).
    public let crc32: UInt32?
    /// Keeps the file marked as this process's (a locked descriptor) while the request is handled, so a sweep of
    /// temporary files leaves it alone.
    public let lease: FileLease?

    public init(
        path: String, byteCount: Int, sha256: Digest, md5: Digest, crc32: UInt32? = nil, lease: FileLease? = nil
    ) {
        self.path = path
        self.byteCount = byteCount
        self.sha256 = sha256
        self.md5 = md5
        self.crc32 = crc32
        self.lease = lease
    }

    /// Writes the file's bytes to the device (`fsync`), on a dispatch thread. A handler that publishes the file
    /// under a lock calls this first, so the lock is not held while the data is written.
    ///
    /// - Throws: ``SystemCallError`` naming the call and the path.
    public func sync() async throws {
        let path = path
        try await blocking(on: .global()) {
            let descriptor = try FileDescriptor.open(path, O_RDONLY)
            defer { try? descriptor.close() }
            try descriptor.sync()
        }
    }
}
