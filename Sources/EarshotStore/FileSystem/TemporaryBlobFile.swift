internal import EarshotCore
internal import EarshotCrypto
internal import Foundation

/// A blob being written: a file in the store's `.tmp` directory plus the digests of what went into it.
///
/// A write appends, then ``seal()``s (fsync, digests, identity) and hands the sealed file to the commit, which
/// renames it into place. Until then, ``discard()`` (or deinit, as a safety net) removes it, so a failed or
/// cancelled write never leaves a blob behind.
final class TemporaryBlobFile: @unchecked Sendable {
    // SAFETY: one write owns this object; it calls the methods one at a time, each awaited before the next, so
    // the mutable state (fd, hashers, size) is never touched by two threads at once.
    let path: String
    private var fd: Int32
    private var sha256: StreamingHasher?
    private var md5: StreamingHasher?
    private(set) var size: Int64 = 0
    private var committed = false
    /// Digests vouched for by the writer of an adopted file (see ``adopt(_:mode:chunkSize:known:)``).
    private var known: BlobWriteOptions.KnownDigests?

    /// The identity and digests of a fully written, fsynced temporary file.
    struct Sealed: Sendable {
        let path: String
        let size: Int64
        let sha256: Digest
        let md5: Digest
        let inode: UInt64
        let modified: timespec
    }

    private init(path: String, fd: Int32) throws {
        self.path = path
        self.fd = fd
        self.sha256 = try StreamingHasher(.sha256)
        self.md5 = try StreamingHasher(.md5)
    }

    /// A new, empty, exclusively created file in `directory`.
    static func create(in directory: String, mode: mode_t) throws -> TemporaryBlobFile {
        let path = directory + "/" + Identifier.make(prefix: "put")
        let fd = try POSIX.open(path, O_WRONLY | O_CREAT | O_EXCL, mode)
        do {
            return try TemporaryBlobFile(path: path, fd: fd)
        } catch {
            Foundation.close(fd)
            Foundation.unlink(path)
            throw StoreError(.io, "cannot start digests for \(path)", underlying: error)
        }
    }

    /// Takes over a complete file already inside the temporary directory and digests its content, or, when the
    /// writer's digests are `known`, checks only the size and records those.
    static func adopt(
        _ path: String, mode: mode_t, chunkSize: Int, known: BlobWriteOptions.KnownDigests? = nil
    ) throws -> TemporaryBlobFile {
        let fd = try POSIX.open(path, O_RDWR | O_NOFOLLOW)
        let file: TemporaryBlobFile
        do {
            file = try TemporaryBlobFile(path: path, fd: fd)
        } catch {
            Foundation.close(fd)
            throw StoreError(.io, "cannot start digests for \(path)", underlying: error)
        }
        guard fchmod(fd, mode) == 0 else { throw posixError(errno, "fchmod", path) }
        // Fresh modification time: the sweep of stale temporary files must not take it for a leftover.
        guard futimens(fd, nil) == 0 else { throw posixError(errno, "futimens", path) }
        if let known {
            let actual = Int64(try POSIX.fstat(fd, path).st_size)
            guard actual == known.size else {
                throw StoreError(
                    .corrupted, "\(path) is \(actual) bytes but its writer reported \(known.size); not stored")
            }
            file.known = known
            file.size = actual
            return file
        }
        var offset: Int64 = 0
        while true {
            let chunk = try POSIX.pread(fd, count: chunkSize, offset: offset, path)
            if chunk.isEmpty { break }
            chunk.withUnsafeBytes { file.digest($0) }
            offset += Int64(chunk.count)
        }
        return file
    }

    deinit {
        if fd >= 0 { Foundation.close(fd) }
        if !committed { Foundation.unlink(path) }
    }

    /// Appends bytes to the file and the digests.
    func append(_ bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { buffer in
            guard !buffer.isEmpty else { return }
            try POSIX.writeAll(fd, buffer, path)
            digest(buffer)
        }
    }

    private func digest(_ buffer: UnsafeRawBufferPointer) {
        sha256?.update(buffer)
        md5?.update(buffer)
        size += Int64(buffer.count)
    }

    /// fsyncs and closes the file and finishes the digests.
    func seal() throws -> Sealed {
        try POSIX.fsync(fd, path)
        let info = try POSIX.fstat(fd, path)
        Foundation.close(fd)
        fd = -1
        guard let sha = sha256.take(), let md5 = md5.take() else {
            throw StoreError(.invalidArgument, "temporary blob file \(path) sealed twice")
        }
        let digests: (sha256: Digest, md5: Digest)
        if let known {
            digests = (known.sha256, known.md5)
        } else {
            digests = (sha.finalize(), md5.finalize())
        }
        return Sealed(
            path: path, size: size, sha256: digests.sha256, md5: digests.md5, inode: UInt64(info.st_ino),
            modified: info.st_mtim)
    }

    /// Records that the file was renamed into place, so deinit leaves it alone.
    func markCommitted() { committed = true }

    /// Closes and removes the file (idempotent).
    func discard() {
        if fd >= 0 { Foundation.close(fd) }
        fd = -1
        if !committed { Foundation.unlink(path) }
        committed = true
    }
}
