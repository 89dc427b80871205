internal import EarshotCore
internal import EarshotCrypto
internal import CSystem
internal import Foundation

/// A blob being written: a ``TemporaryFile`` in the store's `.tmp` directory plus the digests of what went into it.
///
/// A write appends, then ``seal()``s (fsync, digests, identity) and hands the sealed file to the commit, which
/// publishes it under the key. Until then, ``discard()`` (or deinit, as a safety net) removes it, so a failed or
/// cancelled write never leaves a blob behind.
final class TemporaryBlobFile: @unchecked Sendable {
    // SAFETY: one write owns this object; it calls the methods one at a time, each awaited before the next, so
    // the mutable state (the file, the digests) is never touched by two threads at once.
    let file: TemporaryFile
    private let digests: StreamingDigests
    /// Digests vouched for by the writer of an adopted file (see ``adopt(_:mode:chunkSize:known:)``).
    private var known: BlobWriteOptions.KnownDigests?
    /// The SHA-256 vouched for by the caller of ``assemble(_:in:mode:sha256:)`` (no MD5 then).
    private var assembledSHA256: Digest?

    var path: String { file.path }

    /// The identity and digests of a fully written, fsynced temporary file.
    struct Sealed: Sendable {
        let path: String
        let size: Int64
        let sha256: Digest
        /// Nil for an ``assemble(_:in:mode:sha256:)``d file.
        let md5: Digest?
        let inode: UInt64
        let modified: timespec
    }

    private init(digests: StreamingDigests, file: (StreamingDigests) throws(SystemCallError) -> TemporaryFile) throws {
        self.digests = digests
        self.file = try fileSystem { () throws(SystemCallError) in try file(digests) }
    }

    private static func digests(for path: String) throws -> StreamingDigests {
        do {
            return try StreamingDigests([.sha256, .md5])
        } catch {
            throw StoreError(.io, "cannot start digests for \(path)", underlying: error)
        }
    }

    /// A new, empty, exclusively created file in `directory`; every byte appended is digested.
    static func create(in directory: String, mode: mode_t) throws -> TemporaryBlobFile {
        let path = directory + "/" + Identifier.make(prefix: "put")
        return try TemporaryBlobFile(digests: try digests(for: path)) { digests throws(SystemCallError) in
            try TemporaryFile(path: path, mode: mode, observer: { digests.update($0) })
        }
    }

    /// Takes over a complete file already inside the temporary directory and digests its content, or, when the
    /// writer's digests are `known`, checks only the size and records those.
    static func adopt(
        _ path: String, mode: mode_t, chunkSize: Int, known: BlobWriteOptions.KnownDigests? = nil
    ) throws -> TemporaryBlobFile {
        let blob = try TemporaryBlobFile(digests: try digests(for: path)) { _ throws(SystemCallError) in
            try TemporaryFile(adopting: path)
        }
        let file = blob.file
        guard let descriptor = file.descriptor else { throw StoreError(.io, "\(path) was closed while adopted") }
        try fileSystem { () throws(SystemCallError) in
            try descriptor.setPermissions(mode)
            // Fresh modification time: the sweep of stale temporary files must not take it for a leftover.
            try descriptor.touch()
        }
        if let known {
            guard file.byteCount == known.size else {
                throw StoreError(
                    .corrupted, "\(path) is \(file.byteCount) bytes but its writer reported \(known.size); not stored")
            }
            blob.known = known
            return blob
        }
        var offset: Int64 = 0
        while true {
            let chunk = try fileSystem { () throws(SystemCallError) in
                try descriptor.read(upTo: chunkSize, at: offset)
            }
            if chunk.isEmpty { break }
            chunk.withUnsafeBytes { blob.digests.update($0) }
            offset += Int64(chunk.count)
        }
        return blob
    }

    /// A new file in `directory` holding `sources` one after another, copied inside the kernel with
    /// `copy_file_range(2)` (a reflink where the file system shares extents, an in-kernel copy otherwise; never
    /// through user space) and not digested: the caller vouches for `sha256`, computed as the sources arrived.
    static func assemble(
        _ sources: [ReadOnlyFile], in directory: String, mode: mode_t, sha256: Digest
    ) throws -> TemporaryBlobFile {
        let blob = try create(in: directory, mode: mode)
        guard let output = blob.file.descriptor else { throw StoreError(.io, "\(blob.path) closed while assembled") }
        var outputOffset: Int64 = 0
        for source in sources {
            var inputOffset: Int64 = 0
            while inputOffset < source.size {
                let remaining = Int(min(source.size - inputOffset, 1 << 30))
                let copied = earshot_copy_file_range(
                    source.descriptor.rawValue, &inputOffset, output.rawValue, &outputOffset, remaining)
                if copied < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    blob.discard()
                    throw StoreError(SystemCallError("copy_file_range", path: source.path, code: code))
                }
                if copied == 0 {
                    blob.discard()
                    throw StoreError(.corrupted, "\(source.path) ended at byte \(inputOffset) of \(source.size) while assembled")
                }
            }
        }
        blob.assembledSHA256 = sha256
        return blob
    }

    /// Appends bytes to the file and the digests.
    func append(_ bytes: some ContiguousBytes) throws {
        try fileSystem { () throws(SystemCallError) in try file.write(bytes) }
    }

    /// fsyncs and closes the file and finishes the digests.
    func seal() throws -> Sealed {
        let info = try fileSystem { () throws(SystemCallError) in try file.seal() }
        let computed = digests.finalize()
        guard let sha = computed[.sha256], let md5 = computed[.md5] else {
            throw StoreError(.invalidArgument, "temporary blob file \(path) sealed twice")
        }
        if let assembledSHA256 {
            return Sealed(
                path: path, size: Int64(info.st_size), sha256: assembledSHA256, md5: nil, inode: UInt64(info.st_ino),
                modified: info.st_mtim)
        }
        return Sealed(
            path: path, size: Int64(info.st_size), sha256: known?.sha256 ?? sha, md5: known?.md5 ?? md5,
            inode: UInt64(info.st_ino), modified: info.st_mtim)
    }

    /// Closes and removes the file unless it was published (idempotent).
    func discard() { file.discard() }
}
