import EarshotCrypto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a file through a temporary sibling, hashing every byte with SHA-256, then fsyncs and renames it into
/// place, so readers never see a half-written model.
///
/// Call ``commit()`` to publish the file; a writer that is dropped without committing removes its temporary
/// file. A full disk is reported as ``ModelError/Code/diskFull`` naming the destination.
final class AtomicFileWriter {
    let destination: String
    let temporaryPath: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private var hasher: StreamingHasher?
    private var committed = false
    private(set) var bytesWritten = 0
    private static let bufferSize = 1 << 20

    init(destination: String) throws(ModelError) {
        self.destination = destination
        let directory = destination.contains("/") ? String(destination[..<destination.lastIndex(of: "/")!]) : "."
        let name = destination.split(separator: "/").last.map(String.init) ?? destination
        temporaryPath = "\(directory.isEmpty ? "/" : directory)/.\(name).\(getpid()).tmp"
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT {
                throw ModelError(.notFound, "cannot write \(destination): directory \(directory) does not exist")
            }
            throw ModelError(.ioFailure, "cannot create \(temporaryPath): \(String(cString: strerror(code)))")
        }
        descriptor = fd
        do { hasher = try StreamingHasher(.sha256) } catch {
            close(fd)
            unlink(temporaryPath)
            throw ModelError(.ioFailure, "cannot start SHA-256", underlying: error)
        }
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(temporaryPath) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(ModelError) {
        if buffer.count + bytes.count > Self.bufferSize { try flush() }
        if bytes.count >= Self.bufferSize {
            try writeOut(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    func write(_ bytes: [UInt8]) throws(ModelError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(ModelError) in try write(raw) } }.get()
    }

    func write(int32 value: Int32) throws(ModelError) {
        try withUnsafeBytes(of: value.littleEndian) { raw in Result { () throws(ModelError) in try write(raw) } }.get()
    }

    func write(floats: [Float]) throws(ModelError) {
        try floats.withUnsafeBytes { raw in Result { () throws(ModelError) in try write(raw) } }.get()
    }

    /// Writes float16 bit patterns.
    func write(halves: [UInt16]) throws(ModelError) {
        try halves.withUnsafeBytes { raw in Result { () throws(ModelError) in try write(raw) } }.get()
    }

    private func flush() throws(ModelError) {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { raw in Result { () throws(ModelError) in try writeOut(raw) } }.get()
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeOut(_ bytes: UnsafeRawBufferPointer) throws(ModelError) {
        hasher!.update(bytes)
        var done = 0
        while done < bytes.count {
            let n = systemWrite(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("write")
            }
            done += n
        }
        bytesWritten += bytes.count
    }

    private func failure(_ operation: String) -> ModelError {
        Self.error(
            errno: errno, operation: operation, path: temporaryPath, destination: destination, written: bytesWritten)
    }

    /// The error for a failed system call: a full disk (or quota) is ``ModelError/Code/diskFull``.
    static func error(errno code: Int32, operation: String, path: String, destination: String, written: Int)
        -> ModelError
    {
        if code == ENOSPC || code == EDQUOT {
            return ModelError(
                .diskFull,
                "no space left on the device holding \(destination) after \(written) bytes; "
                    + "free some space and run the command again")
        }
        return ModelError(.ioFailure, "cannot \(operation) \(path): \(String(cString: strerror(code)))")
    }

    /// Flushes, fsyncs and renames the temporary file over the destination; returns the SHA-256 of the content.
    func commit() throws(ModelError) -> Digest {
        try flush()
        guard fsync(descriptor) == 0 else { throw failure("fsync") }
        guard close(descriptor) == 0 else {
            descriptor = -1
            throw failure("close")
        }
        descriptor = -1
        guard rename(temporaryPath, destination) == 0 else { throw failure("rename") }
        committed = true
        return hasher.take()!.finalize()
    }
}

private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
