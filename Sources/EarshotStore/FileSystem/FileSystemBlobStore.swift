internal import Dispatch
public import EarshotCore
internal import EarshotCrypto
public import Foundation
internal import Synchronization

/// The embedded blob store: one file per blob under a root directory.
///
/// Layout: the blob `uploads/file_x/part-00001` is the file `<root>/uploads/file_x/part-00001`; its digests
/// live in `<root>/uploads/file_x/.part-00001.meta`; writes in progress live in `<root>/.tmp/`. Keys cannot
/// contain `.`-leading segments, so neither can collide with a blob.
///
/// A write goes to a new file in `.tmp` (same file system), is fsynced, renamed over the key's path, and the
/// directory is fsynced: readers see the old or the new content, never a mix, and a crash leaves at most a
/// temporary file, which is swept when a store opens on the root and it is older than
/// ``Configuration/staleTemporaryAge``. Files are created 0600 and directories 0700 by default.
///
/// One limitation of this backend: a key cannot be both a blob and a prefix of other keys (`a/b` and `a/b/c`);
/// such a write fails with ``StoreError/Code-swift.struct/conflict``.
public final class FileSystemBlobStore: BlobStore {
    /// Where blobs live and how they are written.
    public struct Configuration: Sendable {
        /// The root directory; created (with ``directoryMode``) when missing.
        public var root: URL
        /// Bytes per chunk when reading and copying.
        public var chunkSize = 256 * 1024
        /// Permissions of blob files.
        public var fileMode: UInt16 = 0o600
        /// Permissions of directories.
        public var directoryMode: UInt16 = 0o700
        /// A temporary file that no live process holds (left by a crash or a kill: its writer's lock died with
        /// it) is removed at open, and by ``removeStaleTemporaryFiles()``, once it is this old — a short grace for
        /// a file between its creation and its lock. Files a live process holds are never removed.
        public var staleTemporaryAge: Duration = .seconds(2)
        /// Where sweeps and recoveries are logged.
        public var logger = Logger(label: "store")

        public init(root: URL) {
            self.root = root
        }
    }

    public let configuration: Configuration
    let rootPath: String
    let temporaryPath: String
    private let removedTemporaries = Atomic<Int>(0)

    /// Temporary files this store swept since it opened (crash leftovers), for `/metrics`.
    public var temporaryFilesRemoved: Int { removedTemporaries.load(ordering: .relaxed) }

    /// Opens (creating when missing) a store at `configuration.root` and sweeps stale temporary files.
    public init(configuration: Configuration) async throws {
        self.configuration = configuration
        let root = configuration.root.standardizedFileURL.path
        self.rootPath = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
        self.temporaryPath = rootPath + "/.tmp"
        precondition(configuration.chunkSize > 0, "chunkSize must be positive")
        let (rootPath, temporaryPath) = (self.rootPath, self.temporaryPath)
        let removed = try await blocking(on: Self.queue()) {
            let mode = mode_t(configuration.directoryMode)
            do {
                try FileManager.default.createDirectory(
                    atPath: rootPath, withIntermediateDirectories: true, attributes: [.posixPermissions: Int(mode)])
            } catch {
                throw StoreError(.io, "cannot create the blob root \(rootPath): \(error)", underlying: error)
            }
            try Self.makeDirectories(temporaryPath, below: rootPath, mode: mode)
            return try Self.sweep(temporaryPath, olderThan: configuration.staleTemporaryAge)
        }
        removedTemporaries.add(removed, ordering: .relaxed)
        if removed > 0 {
            configuration.logger.notice(
                "removed temporary blob files no process owns", metadata: ["count": "\(removed)", "root": rootPath])
        }
    }

    /// Convenience for ``init(configuration:)`` with default settings.
    public convenience init(root: URL) async throws {
        try await self.init(configuration: Configuration(root: root))
    }

    /// Removes temporary files no live process holds (of writes interrupted by a crash or a kill) once they are
    /// ``Configuration/staleTemporaryAge`` old; returns how many. Opening a store does this once; a long-running
    /// server calls it periodically.
    @discardableResult
    public func removeStaleTemporaryFiles() async throws -> Int {
        let (path, age) = (temporaryPath, configuration.staleTemporaryAge)
        let removed = try await blocking(on: Self.queue()) { try Self.sweep(path, olderThan: age) }
        removedTemporaries.add(removed, ordering: .relaxed)
        return removed
    }

    /// A serial queue for one operation: blocking calls run on libdispatch threads, in order.
    static func queue() -> DispatchQueue { DispatchQueue(label: "earshot.store.blobs") }

    /// Removes the regular files in `directory` that no live process holds (``FileDescriptor/lockExclusively()``
    /// succeeds on them) and that were not modified for `age`; returns how many.
    private static func sweep(_ directory: String, olderThan age: Duration) throws -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let cutoff = Date.now.timeIntervalSince1970 - age.seconds
        var removed = 0
        for name in names {
            let path = directory + "/" + name
            guard let info = try fileSystem({ () throws(SystemCallError) in try FileSystem.linkStatus(path) }),
                info.st_mode & S_IFMT == S_IFREG
            else { continue }
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            guard modified <= cutoff,
                let probe = try? FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
            else { continue }
            // Unlinked while still holding the probe's lock, so a writer cannot take the file in between.
            let unowned = probe.lockExclusively()
            if unowned, try fileSystem({ () throws(SystemCallError) in try FileSystem.unlinkIfPresent(path) }) {
                removed += 1
            }
            try? probe.close()
        }
        return removed
    }

    /// Creates `path` and missing parents below `root` with `mode`, fsyncing each parent whose entries changed.
    static func makeDirectories(_ path: String, below root: String, mode: mode_t) throws(StoreError) {
        try fileSystem { () throws(SystemCallError) in try makeMissingDirectories(path, below: root, mode: mode) }
    }

    private static func makeMissingDirectories(_ path: String, below root: String, mode: mode_t)
        throws(SystemCallError)
    {
        if let existing = try FileSystem.linkStatus(path) {
            guard existing.st_mode & S_IFMT == S_IFDIR else {
                throw SystemCallError("mkdir", path: path, code: ENOTDIR)
            }
            return
        }
        let parent = FileSystem.directory(of: path)
        if parent.count > root.count { try makeMissingDirectories(parent, below: root, mode: mode) }
        // false: created concurrently
        if try FileSystem.makeDirectory(path, mode: mode) { try FileSystem.syncDirectory(parent) }
    }

    // MARK: Paths

    func path(for key: BlobKey) -> String { rootPath + "/" + key.rawValue }

    func sidecarPath(for key: BlobKey) -> String {
        let path = path(for: key)
        let slash = path.lastIndex(of: "/")!
        return path[...slash] + "." + path[path.index(after: slash)...] + ".meta"
    }

    /// `lstat` of the blob file, or nil when no blob is stored under `key` (nothing, or a directory of keys).
    func blobStat(_ key: BlobKey) throws(StoreError) -> stat? {
        let path = path(for: key)
        let info = try fileSystem(key: key) { () throws(SystemCallError) in try FileSystem.linkStatus(path) }
        guard let info, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return info
    }

    /// Opens the blob file read-only; nil when no blob is stored under `key` (nothing, a directory of keys, or a
    /// symbolic link).
    func openBlob(_ key: BlobKey) throws(StoreError) -> ReadOnlyFile? {
        let file: ReadOnlyFile
        do {
            file = try ReadOnlyFile(path: path(for: key), flags: O_NOFOLLOW)
        } catch {
            if error.isNotFound || error.code == ELOOP { return nil }
            throw StoreError(error, key: key)
        }
        return file.isRegularFile ? file : nil
    }

    func notFound(_ key: BlobKey) -> StoreError {
        StoreError(.notFound, "no blob is stored under \(key)")
    }

    // MARK: Reading

    public func get(_ key: BlobKey, range: Range<Int64>?) async throws -> BlobContent {
        let chunkSize = configuration.chunkSize
        let reader = try await blocking(on: Self.queue()) { () throws -> BlobFileReader in
            guard let file = try self.openBlob(key) else { throw self.notFound(key) }
            let reader = BlobFileReader(file: file, chunkSize: chunkSize)
            try reader.limit(to: range, size: file.size, key: key)
            return reader
        }
        return BlobContent(
            key: key, size: reader.size, range: reader.range,
            chunks: AsyncThrowingStream(unfolding: { try await reader.next() }))
    }

    public func info(_ key: BlobKey) async throws -> BlobInfo {
        try await blocking(on: Self.queue()) { try self.loadInfo(key) }
    }

    /// Reads the blob's sidecar, or recomputes (and re-records) the digests when it is missing or stale.
    func loadInfo(_ key: BlobKey) throws -> BlobInfo {
        guard let info = try blobStat(key) else { throw notFound(key) }
        let sidecarPath = sidecarPath(for: key)
        if let sidecar = BlobSidecar.read(sidecarPath), sidecar.describes(info),
            let sha256 = Digest(hex: sidecar.sha256)
        {
            return BlobInfo(
                key: key, size: sidecar.size, sha256: sha256, md5: sidecar.md5.flatMap(Digest.init(hex:)),
                lastModified: info.modified)
        }
        // No trustworthy sidecar (a crash between the two renames, or a file placed by hand): digest the file.
        guard let file = try openBlob(key) else { throw notFound(key) }
        let digests = try StreamingDigests([.sha256, .md5])
        var offset: Int64 = 0
        while true {
            let chunk = try fileSystem(key: key) { () throws(SystemCallError) in
                try file.read(upTo: configuration.chunkSize, at: offset)
            }
            if chunk.isEmpty { break }
            chunk.withUnsafeBytes { digests.update($0) }
            offset += Int64(chunk.count)
        }
        let computed = digests.finalize()
        let opened = file.status
        let sidecar = BlobSidecar(
            size: offset, sha256: computed[.sha256]!, md5: computed[.md5]!, inode: UInt64(opened.st_ino),
            modified: opened.st_mtim)
        try? sidecar.write(to: sidecarPath, temporaryDirectory: temporaryPath, mode: mode_t(configuration.fileMode))
        configuration.logger.info("recomputed blob digests", metadata: ["key": key.rawValue])
        return BlobInfo(
            key: key, size: offset, sha256: computed[.sha256]!, md5: computed[.md5],
            lastModified: opened.modified)
    }

    public func exists(_ key: BlobKey) async throws -> Bool {
        try await blocking(on: Self.queue()) { try self.blobStat(key) != nil }
    }

    public func ping() async throws {
        let (root, temporary) = (rootPath, temporaryPath)
        try await blocking(on: Self.queue()) {
            for directory in [root, temporary] {
                guard let info = try? FileSystem.linkStatus(directory), (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw StoreError(.unavailable, "the blob directory \(directory) is missing or not a directory")
                }
                guard access(directory, W_OK | X_OK) == 0 else {
                    throw StoreError(.unavailable, "the blob directory \(directory) is not writable")
                }
            }
        }
    }

    public func localFile(for key: BlobKey) async throws -> URL? {
        try await blocking(on: Self.queue()) {
            guard try self.blobStat(key) != nil else { throw self.notFound(key) }
            return URL(fileURLWithPath: self.path(for: key))
        }
    }

    public func list(prefix: String) async throws -> [BlobKey] {
        try BlobKey.validatePrefix(prefix)
        return try await blocking(on: Self.queue()) {
            // Walk only the deepest directory the prefix names completely.
            let directoryPart = prefix.lastIndex(of: "/").map { String(prefix[..<$0]) } ?? ""
            var keys: [BlobKey] = []
            try self.walk(directoryPart) { relative in
                if relative.hasPrefix(prefix), let key = try? BlobKey(relative) { keys.append(key) }
            }
            return keys.sorted()
        }
    }

    private func walk(_ relative: String, _ visit: (String) throws -> Void) throws {
        let directory = relative.isEmpty ? rootPath : rootPath + "/" + relative
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            // Nothing under this prefix:
            guard try fileSystem({ () throws(SystemCallError) in try FileSystem.linkStatus(directory) }) != nil else {
                return
            }
            throw StoreError(.io, "cannot list \(directory): \(error)", underlying: error)
        }
        for name in names where !name.hasPrefix(".") {
            let child = relative.isEmpty ? name : relative + "/" + name
            let path = rootPath + "/" + child
            guard let info = try fileSystem({ () throws(SystemCallError) in try FileSystem.linkStatus(path) }) else {
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: try walk(child, visit)
            case S_IFREG: try visit(child)
            default: continue
            }
        }
    }

    // MARK: Deleting

    public func delete(_ key: BlobKey) async throws {
        try await blocking(on: Self.queue()) {
            guard try self.blobStat(key) != nil else { return }
            // Sidecar first: a crash in between leaves a blob without digests (recomputed), never stale digests.
            let (sidecar, blob) = (self.sidecarPath(for: key), self.path(for: key))
            let directory = (blob as NSString).deletingLastPathComponent
            try fileSystem(key: key) { () throws(SystemCallError) in
                try FileSystem.unlinkIfPresent(sidecar)
                try FileSystem.unlinkIfPresent(blob)
                try FileSystem.syncDirectory(directory)
            }
            self.pruneEmptyDirectories(from: directory)
        }
    }

    /// Removes `directory` and its ancestors below the root while they are empty (best effort: a concurrent
    /// write recreates what it needs).
    func pruneEmptyDirectories(from directory: String) {
        var current = directory
        while current.count > rootPath.count, current.hasPrefix(rootPath + "/") {
            guard rmdir(current) == 0 else { return }
            current = (current as NSString).deletingLastPathComponent
        }
    }
}

extension stat {
    var modified: Date {
        Date(timeIntervalSince1970: Double(st_mtim.tv_sec) + Double(st_mtim.tv_nsec) / 1e9)
    }
}
