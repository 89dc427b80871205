#if canImport(Glibc)
    public import Glibc
#elseif canImport(Darwin)
    public import Darwin
#endif

/// An open file descriptor and the path it was opened for, with the system calls Earshot makes on it.
///
/// Every call retries `EINTR`; reads and writes loop until the whole buffer is transferred (a short count is not an
/// error), so callers never write those loops themselves. Failures throw ``SystemCallError`` naming the call and
/// ``path``. A descriptor is a plain value and does not close itself: whoever opened it calls ``close()`` (or
/// uses ``ReadOnlyFile`` / ``TemporaryFile``, which do). Positional reads and writes (`pread`/`pwrite`) may run
/// from several threads at once; the others move the shared file offset.
public struct FileDescriptor: Sendable, Hashable {
    /// The descriptor number.
    public let rawValue: Int32
    /// The path it was opened for (used in errors).
    public let path: String

    /// Wraps a descriptor opened elsewhere.
    public init(rawValue: Int32, path: String) {
        self.rawValue = rawValue
        self.path = path
    }

    /// Opens `path` with `flags` (`O_CLOEXEC` is always added) and `mode` for a created file.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(SystemCallError)
        -> FileDescriptor
    {
        while true {
            let fd = systemOpen(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return FileDescriptor(rawValue: fd, path: path) }
            if errno != EINTR { throw SystemCallError("open", path: path, code: errno) }
        }
    }

    /// Closes the descriptor. The descriptor is released even when this throws (Linux never leaves it open), so
    /// an error only matters to a writer that has not fsynced.
    public func close() throws(SystemCallError) {
        if systemClose(rawValue) == 0 || errno == EINTR { return }
        throw SystemCallError("close", path: path, code: errno)
    }

    /// Takes an exclusive advisory lock (`flock`, non-blocking) on the open file: true when taken, false when
    /// another open file description holds it. The lock lasts until this descriptor is closed — or its process
    /// dies, which is what makes it a reliable "a live process owns this file" mark.
    public func lockExclusively() -> Bool {
        while true {
            if flock(rawValue, LOCK_EX | LOCK_NB) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    // MARK: Reading

    /// Reads from the current position into `buffer` until it is full or the file (or pipe) ends; returns the
    /// number of bytes read, fewer than `buffer.count` only at the end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        try transfer(buffer.count, "read") { done in
            systemRead(rawValue, buffer.baseAddress! + done, buffer.count - done)
        }
    }

    /// Reads at `offset` into `buffer` until it is full or the file ends (`pread`); returns the number of bytes
    /// read, fewer than `buffer.count` only at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SystemCallError) -> Int {
        try transfer(buffer.count, "pread") { done in
            pread(rawValue, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
        }
    }

    /// Up to `count` bytes at `offset` (`pread`); fewer only at the end of the file.
    public func read(upTo count: Int, at offset: Int64) throws(SystemCallError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let filled = try bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemCallError) in try read(into: buffer, at: offset) }
        }.get()
        if filled < count { bytes.removeSubrange(filled...) }
        return bytes
    }

    // MARK: Writing

    /// Writes all of `buffer` at the current position.
    public func write(_ buffer: UnsafeRawBufferPointer) throws(SystemCallError) {
        let written = try transfer(buffer.count, "write") { done in
            systemWrite(rawValue, buffer.baseAddress! + done, buffer.count - done)
        }
        if written < buffer.count { throw SystemCallError("write", path: path, code: EIO) }
    }

    /// Writes all of `buffer` at `offset` (`pwrite`); the current position does not move.
    public func write(_ buffer: UnsafeRawBufferPointer, at offset: Int64) throws(SystemCallError) {
        let written = try transfer(buffer.count, "pwrite") { done in
            pwrite(rawValue, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
        }
        if written < buffer.count { throw SystemCallError("pwrite", path: path, code: EIO) }
    }

    /// Repeats `step(done)` until `count` bytes moved or it returns 0 (end of file); retries `EINTR`.
    private func transfer(_ count: Int, _ call: String, _ step: (Int) -> Int) throws(SystemCallError) -> Int {
        var done = 0
        while done < count {
            let moved = step(done)
            if moved < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(call, path: path, code: errno)
            }
            if moved == 0 { break }
            done += moved
        }
        return done
    }

    // MARK: Metadata

    /// Flushes the file's data and metadata to the device (`fsync`).
    public func sync() throws(SystemCallError) {
        while fsync(rawValue) != 0 {
            if errno != EINTR { throw SystemCallError("fsync", path: path, code: errno) }
        }
    }

    /// The file's status (`fstat`): size, type, inode, modification time.
    public func status() throws(SystemCallError) -> stat {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { throw SystemCallError("fstat", path: path, code: errno) }
        return info
    }

    /// Sets the permission bits (`fchmod`).
    public func setPermissions(_ mode: mode_t) throws(SystemCallError) {
        guard fchmod(rawValue, mode) == 0 else { throw SystemCallError("fchmod", path: path, code: errno) }
    }

    /// Sets the access and modification times to now (`futimens`).
    public func touch() throws(SystemCallError) {
        guard futimens(rawValue, nil) == 0 else { throw SystemCallError("futimens", path: path, code: errno) }
    }
}

// File-scope forwarders: inside `FileDescriptor`, `open`, `close`, `read` and `write` name its own methods.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
