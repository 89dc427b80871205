#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file opened read-only with `open(2)`, read with `pread(2)`; closed on deinit.
final class ReadOnlyFile {
    let path: String
    let size: Int64
    private let descriptor: Int32

    init(path: String) throws(AudioError) {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw posixError(errno, "open", path) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw posixError(code, "fstat", path)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw AudioError(.notFound, "\(path) is not a regular file (a directory or a device); pass a WAV file")
        }
        self.descriptor = descriptor
        self.size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes at `offset`; fewer only at the end of the file.
    func read(at offset: Int64, count: Int) throws(AudioError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw posixError(errno, "pread", path)
            }
            if result == 0 { break }
            filled += result
        }
        bytes.removeLast(count - filled)
        return bytes
    }
}

/// An ``AudioError`` for a failed POSIX call on `path`, naming the call.
func posixError(_ code: Int32, _ function: StaticString, _ path: String) -> AudioError {
    let text = String(cString: strerror(code))
    let underlying = LibraryCallError(function: "\(function)", code: code, text: text)
    switch code {
    case ENOENT, ENOTDIR: return AudioError(.notFound, "no such file: \(path)", underlying: underlying)
    case ENOSPC: return AudioError(.io, "\(path): no space left on the device", underlying: underlying)
    default: return AudioError(.io, "\(path): \(function) failed: \(text)", underlying: underlying)
    }
}
