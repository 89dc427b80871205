import EarshotCore
import EarshotCrypto

/// Writes a request body to a new file as it arrives, hashing it with SHA-256 and MD5 (and a CRC-32 when the client
/// sent one to check) on the way.
///
/// A ``TemporaryFile`` whose bytes feed the digests: a body that fails or is abandoned leaves no file; a complete
/// one is handed to the handler as an ``UploadedFile`` (not fsynced: whoever keeps it publishes it).
/// Used only by the libmicrohttpd worker thread that owns the connection (not `Sendable`).
final class FileSink {
    private let file: TemporaryFile
    private let digests: StreamingDigests
    private var failure: SystemCallError?

    /// Creates `directory/upload_….part` (mode 0600, must not exist).
    init(directory: String, requestID: String, crc32: Bool) throws {
        let digests = try StreamingDigests([.sha256, .md5], crc32: crc32)
        self.digests = digests
        file = try TemporaryFile(
            path: PathPattern.joined(directory, Identifier.make(prefix: "upload") + ".part"), mode: 0o600,
            observer: { digests.update($0) })
    }

    var path: String { file.path }

    /// Appends a chunk; after a write error the rest of the body is ignored and ``finish()`` reports the error.
    func write(_ chunk: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        do {
            try file.write(chunk)
        } catch {
            failure = error
            file.discard()
        }
    }

    /// Closes the file and returns what was written, or deletes it on a write error.
    func finish() -> Result<UploadedFile, SystemCallError> {
        if let failure { return .failure(failure) }
        let (path, lease) = file.keepLeased()
        let computed = digests.finalize()
        return .success(
            UploadedFile(
                path: path, byteCount: Int(digests.byteCount), sha256: computed[.sha256]!, md5: computed[.md5]!,
                crc32: digests.crc32, lease: lease))
    }

    /// Closes and deletes the file (limit exceeded, client gone).
    func discard() { file.discard() }
}
