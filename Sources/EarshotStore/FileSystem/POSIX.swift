internal import Dispatch
internal import Foundation

/// The ``StoreError`` for a failed system call on `path`.
func posixError(_ code: Int32, _ function: String, _ path: String, key: BlobKey? = nil) -> StoreError {
    let reason = String(cString: strerror(code))
    let subject = key.map { "blob \($0) (\(path))" } ?? path
    let storeCode: StoreError.Code
    switch code {
    case ENOENT: storeCode = .notFound
    case EEXIST, ENOTDIR, EISDIR, ENOTEMPTY: storeCode = .conflict
    default: storeCode = .io
    }
    return StoreError(
        storeCode, "\(function) failed for \(subject): \(reason)",
        underlying: POSIXFailure(function: function, errno: code))
}

/// A failed system call, kept as ``StoreError/underlying``.
struct POSIXFailure: Error, CustomStringConvertible {
    let function: String
    let errno: Int32
    var description: String { "\(function): errno \(errno) (\(String(cString: strerror(errno))))" }
}

/// Runs blocking file-system work on `queue` (libdispatch's threads, not the cooperative pool).
func blocking<T: Sendable>(on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        queue.async { continuation.resume(with: Result { try work() }) }
    }
}

/// Thin, errno-checked wrappers over the system calls the file-system store uses.
enum POSIX {
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0, key: BlobKey? = nil) throws(StoreError)
        -> Int32
    {
        while true {
            let fd = Foundation.open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw posixError(errno, "open", path, key: key) }
        }
    }

    static func fstat(_ fd: Int32, _ path: String) throws(StoreError) -> stat {
        var info = stat()
        guard Foundation.fstat(fd, &info) == 0 else { throw posixError(errno, "fstat", path) }
        return info
    }

    /// `lstat`, or nil when nothing exists at `path`.
    static func lstat(_ path: String) throws(StoreError) -> stat? {
        var info = stat()
        if Foundation.lstat(path, &info) == 0 { return info }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw posixError(errno, "lstat", path)
    }

    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, _ path: String) throws(StoreError) {
        var offset = 0
        while offset < buffer.count {
            let written = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw posixError(errno, "write", path)
            }
            offset += written
        }
    }

    /// Reads up to `count` bytes at `offset`; fewer only at the end of the file.
    static func pread(_ fd: Int32, count: Int, offset: Int64, _ path: String) throws(StoreError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                Foundation.pread(fd, buffer.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw posixError(errno, "pread", path)
            }
            if got == 0 { break }
            filled += got
        }
        if filled < count { bytes.removeSubrange(filled...) }
        return bytes
    }

    static func fsync(_ fd: Int32, _ path: String) throws(StoreError) {
        guard Foundation.fsync(fd) == 0 else { throw posixError(errno, "fsync", path) }
    }

    /// fsyncs a directory so that a rename or creation inside it survives power loss.
    static func fsyncDirectory(_ path: String) throws(StoreError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { Foundation.close(fd) }
        try fsync(fd, path)
    }

    static func rename(_ from: String, _ to: String, key: BlobKey? = nil) throws(StoreError) {
        guard Foundation.rename(from, to) == 0 else { throw posixError(errno, "rename", to, key: key) }
    }

    /// Unlinks `path`; true when something was removed, false when nothing was there.
    @discardableResult
    static func unlinkIfPresent(_ path: String) throws(StoreError) -> Bool {
        if Foundation.unlink(path) == 0 { return true }
        if errno == ENOENT || errno == ENOTDIR { return false }
        throw posixError(errno, "unlink", path)
    }

    /// Creates `path` and missing parents below `root` with `mode`, fsyncing each parent whose entries changed.
    static func makeDirectories(_ path: String, below root: String, mode: mode_t) throws(StoreError) {
        if let existing = try lstat(path) {
            guard existing.st_mode & S_IFMT == S_IFDIR else { throw posixError(ENOTDIR, "mkdir", path) }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if parent.count > root.count { try makeDirectories(parent, below: root, mode: mode) }
        if Foundation.mkdir(path, mode) != 0 {
            guard errno == EEXIST else { throw posixError(errno, "mkdir", path) }
            return  // created concurrently
        }
        try fsyncDirectory(parent)
    }
}
