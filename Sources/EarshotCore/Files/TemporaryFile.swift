public import Foundation

/// A file written under a temporary name, then published atomically: `fsync`, `rename` over the destination and
/// `fsync` of the destination's directory. Readers of the destination see the old content or the new, never a
/// mix; a crash at any point leaves at most the temporary file.
///
/// Each byte written is passed once, in order, to the `observer` given at creation, after it reached the file:
/// feed a digest there (EarshotCore does not hash; EarshotCrypto's `StreamingDigests` fits). Dropping the object
/// before ``publish(to:syncingDirectory:)`` or ``keep()`` closes and removes the temporary file, so a failed or
/// cancelled write leaves nothing behind.
///
/// While the object holds the file open, the file carries an exclusive `flock`: a sweep of temporary files
/// (`FileSystemBlobStore`) removes only files that no live process holds, so a write in progress is never swept
/// and a crash's leftovers are (the kernel drops the lock when the process dies).
///
/// One owner writes; not thread-safe. Errors are ``SystemCallError``s naming the call and the path.
public final class TemporaryFile {
    /// Where the file is while it is being written.
    public let path: String
    /// Bytes written through ``write(_:)`` (plus the size of an adopted file).
    public private(set) var byteCount: Int64 = 0
    /// The open descriptor; nil once the file is sealed, kept, published or discarded.
    public private(set) var descriptor: FileDescriptor?
    private let observer: ((UnsafeRawBufferPointer) -> Void)?
    private var owned = true

    /// Creates `path` for writing with `mode`. It must not exist, unless `replacing` is true (then it is
    /// truncated: use that for names that can only clash with a leftover of an earlier run).
    public init(
        path: String, mode: mode_t = 0o600, replacing: Bool = false,
        observer: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) throws(SystemCallError) {
        self.path = path
        self.observer = observer
        let descriptor = try FileDescriptor.open(path, O_WRONLY | O_CREAT | (replacing ? O_TRUNC : O_EXCL), mode: mode)
        _ = descriptor.lockExclusively()
        self.descriptor = descriptor
    }

    /// Takes over a complete file that already exists at `path` (not a symbolic link), to be published or removed
    /// like one written here. Its bytes are not passed to an observer; appended bytes would be.
    public init(adopting path: String, observer: ((UnsafeRawBufferPointer) -> Void)? = nil) throws(SystemCallError) {
        self.path = path
        self.observer = observer
        let descriptor = try FileDescriptor.open(path, O_RDWR | O_APPEND | O_NOFOLLOW)
        _ = descriptor.lockExclusively()
        self.descriptor = descriptor
        byteCount = Int64(try descriptor.status().st_size)
    }

    deinit { discard() }

    /// Appends `buffer` to the file, then passes it to the observer.
    public func write(_ buffer: UnsafeRawBufferPointer) throws(SystemCallError) {
        guard !buffer.isEmpty else { return }
        guard let descriptor else { throw SystemCallError("write", path: path, code: EBADF) }
        try descriptor.write(buffer)
        observer?(buffer)
        byteCount += Int64(buffer.count)
    }

    /// Appends `bytes` to the file, then passes them to the observer.
    public func write(_ bytes: some ContiguousBytes) throws(SystemCallError) {
        try bytes.withUnsafeBytes { buffer in Result { () throws(SystemCallError) in try write(buffer) } }.get()
    }

    /// fsyncs and closes the file; returns its status (inode, size, modification time) as it will be published.
    /// A second call only returns the status again.
    @discardableResult
    public func seal() throws(SystemCallError) -> stat {
        guard let descriptor else {
            var info = stat()
            guard stat(path, &info) == 0 else { throw SystemCallError("stat", path: path, code: errno) }
            return info
        }
        try descriptor.sync()
        let info = try descriptor.status()
        self.descriptor = nil
        try descriptor.close()
        return info
    }

    /// Seals the file (if not yet), renames it over `destination` and, with `syncingDirectory`, fsyncs the
    /// destination's directory. Afterwards the file is no longer temporary: dropping this object leaves it.
    ///
    /// When the rename fails the temporary file stays (and is removed on drop), so a caller may create a missing
    /// directory and call again. Pass `syncingDirectory: false` only when the caller fsyncs the directory itself.
    public func publish(to destination: String, syncingDirectory: Bool = true) throws(SystemCallError) {
        try seal()
        try FileSystem.rename(path, to: destination)
        owned = false
        if syncingDirectory { try FileSystem.syncDirectory(FileSystem.directory(of: destination)) }
    }

    /// Closes the file and hands it to the caller, who now owns ``path`` (dropping this object leaves it).
    /// Nothing is fsynced: the new owner does that when it publishes the file.
    public func keep() throws(SystemCallError) -> String {
        owned = false
        if let descriptor {
            self.descriptor = nil
            try descriptor.close()
        }
        return path
    }

    /// Hands the file to the caller like ``keep()``, but leaves it open and locked in the returned lease: the
    /// file stays marked as this process's until the lease is dropped (after the caller moved or removed it).
    public func keepLeased() -> (path: String, lease: FileLease) {
        owned = false
        let lease = FileLease(descriptor)
        descriptor = nil
        return (path, lease)
    }

    /// Closes and removes the temporary file (nothing once it is published or kept). Idempotent.
    public func discard() {
        if let descriptor {
            self.descriptor = nil
            try? descriptor.close()
        }
        if owned {
            owned = false
            unlink(path)
        }
    }
}

/// An open, locked descriptor of a file handed on by ``TemporaryFile/keepLeased()``: while it lives, the file is
/// marked as owned by this process (see ``FileDescriptor/lockExclusively()``). Closes the descriptor when dropped.
public final class FileLease: Sendable {
    private let descriptor: FileDescriptor?

    init(_ descriptor: FileDescriptor?) {
        self.descriptor = descriptor
    }

    deinit { try? descriptor?.close() }
}
