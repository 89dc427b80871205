public import EarshotCrypto

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
}
