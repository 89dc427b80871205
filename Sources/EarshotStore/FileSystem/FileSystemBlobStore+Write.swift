internal import Dispatch
internal import EarshotCore
public import Foundation

extension FileSystemBlobStore {
    public func put<Chunks: AsyncSequence>(
        _ key: BlobKey, from chunks: Chunks, options: BlobWriteOptions
    ) async throws -> BlobInfo where Chunks.Element: ContiguousBytes & Sendable {
        let queue = Self.queue()
        let file = try await blocking(on: queue) {
            try TemporaryBlobFile.create(in: self.temporaryPath, mode: mode_t(self.configuration.fileMode))
        }
        do {
            for try await chunk in chunks {
                try Task.checkCancellation()
                try await blocking(on: queue) { try file.append(chunk) }
            }
            try Task.checkCancellation()
            return try await blocking(on: queue) { try self.commit(file, as: key, options: options) }
        } catch {
            _ = try? await blocking(on: queue) { file.discard() }
            throw error
        }
    }

    public func put(_ key: BlobKey, movingFile file: URL, options: BlobWriteOptions) async throws -> BlobInfo {
        let source = file.standardizedFileURL.path
        return try await blocking(on: Self.queue()) {
            let info = try fileSystem(key: key) { () throws(SystemCallError) in try FileSystem.linkStatus(source) }
            guard let info else {
                throw StoreError(.notFound, "the file to store as \(key) does not exist: \(source)")
            }
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw StoreError(.invalidArgument, "\(source) is not a regular file; only regular files can be stored")
            }
            let mode = mode_t(self.configuration.fileMode)
            let moved = self.temporaryPath + "/" + UUID().uuidString.lowercased()
            let temporary: TemporaryBlobFile
            do {
                try FileSystem.rename(source, to: moved)
                temporary = try TemporaryBlobFile.adopt(
                    moved, mode: mode, chunkSize: self.configuration.chunkSize, known: options.knownDigests)
            } catch let failure as SystemCallError where failure.code == EXDEV {
                // Another file system: copy into a temporary file (digesting as we go; known digests are then
                // checked like expectations), then drop the source.
                temporary = try TemporaryBlobFile.create(in: self.temporaryPath, mode: mode)
                try self.copy(source, into: temporary)
            } catch let failure as SystemCallError {
                throw StoreError(SystemCallError(failure.call, path: source, code: failure.code), key: key)
            }
            do {
                let result = try self.commit(temporary, as: key, options: options)
                _ = try? FileSystem.unlinkIfPresent(source)
                return result
            } catch {
                temporary.discard()
                throw error
            }
        }
    }

    public func compose(_ parts: [BlobKey], into key: BlobKey, options: BlobWriteOptions) async throws -> BlobInfo {
        guard !parts.isEmpty else {
            throw StoreError(.invalidArgument, "compose into \(key) needs at least one part")
        }
        guard !parts.contains(key) else {
            throw StoreError(.invalidArgument, "compose into \(key) cannot use \(key) as one of its parts")
        }
        let queue = Self.queue()
        if let sha256 = options.composedSHA256 {
            // The caller digested the parts as they arrived: assemble in the kernel, read nothing back.
            return try await blocking(on: queue) {
                let sources = try parts.enumerated().map { index, part in
                    guard let source = try self.openBlob(part) else {
                        throw StoreError(.notFound, "part \(index + 1) (\(part)) of \(key) does not exist")
                    }
                    return source
                }
                let file = try TemporaryBlobFile.assemble(
                    sources, in: self.temporaryPath, mode: mode_t(self.configuration.fileMode), sha256: sha256)
                do {
                    return try self.commit(file, as: key, options: options)
                } catch {
                    file.discard()
                    throw error
                }
            }
        }
        let chunkSize = configuration.chunkSize
        let file = try await blocking(on: queue) {
            try TemporaryBlobFile.create(in: self.temporaryPath, mode: mode_t(self.configuration.fileMode))
        }
        do {
            for (index, part) in parts.enumerated() {
                let source = try await blocking(on: queue) { () throws -> ReadOnlyFile in
                    guard let source = try self.openBlob(part) else {
                        throw StoreError(.notFound, "part \(index + 1) (\(part)) of \(key) does not exist")
                    }
                    return source
                }
                var offset: Int64 = 0
                while true {
                    try Task.checkCancellation()
                    let position = offset
                    let read = try await blocking(on: queue) { () throws -> Int in
                        let chunk = try fileSystem(key: part) { () throws(SystemCallError) in
                            try source.read(upTo: chunkSize, at: position)
                        }
                        try file.append(chunk)
                        return chunk.count
                    }
                    if read == 0 { break }
                    offset += Int64(read)
                }
            }
            return try await blocking(on: queue) { try self.commit(file, as: key, options: options) }
        } catch {
            _ = try? await blocking(on: queue) { file.discard() }
            throw error
        }
    }

    /// Copies `source` into `file` in chunks.
    private func copy(_ source: String, into file: TemporaryBlobFile) throws {
        let input = try fileSystem { () throws(SystemCallError) in try ReadOnlyFile(path: source, flags: O_NOFOLLOW) }
        var offset: Int64 = 0
        while true {
            let chunk = try fileSystem { () throws(SystemCallError) in
                try input.read(upTo: configuration.chunkSize, at: offset)
            }
            if chunk.isEmpty { return }
            try file.append(chunk)
            offset += Int64(chunk.count)
        }
    }

    /// Seals `file`, checks `options`, renames it over `key`'s path, records its sidecar and fsyncs the
    /// directory. Runs on a blocking queue.
    func commit(_ file: TemporaryBlobFile, as key: BlobKey, options: BlobWriteOptions) throws -> BlobInfo {
        let sealed = try file.seal()
        try options.verify(key: key, size: sealed.size, sha256: sealed.sha256, md5: sealed.md5)
        let target = path(for: key)
        let directory = (target as NSString).deletingLastPathComponent
        try place(file, at: target, directory: directory, key: key)
        let sidecar = BlobSidecar(
            size: sealed.size, sha256: sealed.sha256, md5: sealed.md5, inode: sealed.inode, modified: sealed.modified)
        do {
            try sidecar.write(
                to: sidecarPath(for: key), temporaryDirectory: temporaryPath, mode: mode_t(configuration.fileMode))
        } catch {
            // The blob is in place; without a sidecar its digests are recomputed on the next `info`.
            configuration.logger.warning(
                "cannot record blob digests", metadata: ["key": key.rawValue, "error": "\(error)"])
        }
        try fileSystem(key: key) { () throws(SystemCallError) in try FileSystem.syncDirectory(directory) }
        let modified = Double(sealed.modified.tv_sec) + Double(sealed.modified.tv_nsec) / 1e9
        return BlobInfo(
            key: key, size: sealed.size, sha256: sealed.sha256, md5: sealed.md5,
            lastModified: Date(timeIntervalSince1970: modified))
    }

    /// Renames the sealed `file` to `target`, creating `directory` first (the caller fsyncs it). A concurrent
    /// delete may prune the directory between the two steps, so a vanished directory is retried a few times.
    private func place(_ file: TemporaryBlobFile, at target: String, directory: String, key: BlobKey)
        throws(StoreError)
    {
        var attempt = 0
        while true {
            attempt += 1
            let failure: StoreError
            do {
                try Self.makeDirectories(directory, below: rootPath, mode: mode_t(configuration.directoryMode))
                try fileSystem(key: key) { () throws(SystemCallError) in
                    try file.file.publish(to: target, syncingDirectory: false)
                }
                return
            } catch {
                failure = error
            }
            if failure.code == .notFound && attempt < 5 { continue }
            if failure.code == .conflict {
                throw StoreError(
                    .conflict,
                    "blob \(key) clashes with existing keys: the file-system store cannot hold both a key and other "
                        + "keys below it (\"a/b\" and \"a/b/c\")", underlying: failure)
            }
            throw failure
        }
    }
}
