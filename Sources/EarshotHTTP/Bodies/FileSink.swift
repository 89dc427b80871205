import EarshotCore
import EarshotCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a request body to a new file as it arrives, hashing it with SHA-256 and MD5 on the way.
///
/// Used only by the libmicrohttpd worker thread that owns the connection (not `Sendable`).
final class FileSink {
    let path: String
    private var fd: Int32
    private var sha256: StreamingHasher?
    private var md5: StreamingHasher?
    private var count = 0
    private var failure: Int32 = 0

    /// Creates `directory/upload_….part` (mode 0600, must not exist).
    init(directory: String, requestID: String) throws {
        path = PathPattern.joined(directory, Identifier.make(prefix: "upload") + ".part")
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileSinkError(operation: "open \(path)", code: errno) }
        sha256 = try StreamingHasher(.sha256)
        md5 = try StreamingHasher(.md5)
    }

    func write(_ chunk: UnsafeRawBufferPointer) {
        guard failure == 0, fd >= 0, let base = chunk.baseAddress else { return }
        var offset = 0
        while offset < chunk.count {
            let n = Glibc.write(fd, base + offset, chunk.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                failure = errno
                return
            }
            offset += n
        }
        sha256!.update(chunk)
        md5!.update(chunk)
        count += chunk.count
    }

    /// Closes the file and returns what was written, or deletes it on a write error.
    func finish() -> Result<UploadedFile, FileSinkError> {
        let closed = Glibc.close(fd)
        fd = -1
        if failure == 0 && closed != 0 { failure = errno }
        guard failure == 0, let sha = sha256.take(), let md5 = md5.take() else {
            unlink(path)
            return .failure(FileSinkError(operation: "write \(path)", code: failure))
        }
        return .success(
            UploadedFile(path: path, byteCount: count, sha256: sha.finalize(), md5: md5.finalize()))
    }

    /// Closes and deletes the file (limit exceeded, client gone).
    func discard() {
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
        unlink(path)
    }
}

struct FileSinkError: Error, CustomStringConvertible {
    let operation: String
    let code: Int32

    var description: String { "\(operation): \(String(cString: strerror(code)))" }
}
