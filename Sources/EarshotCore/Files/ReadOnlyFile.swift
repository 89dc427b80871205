#if canImport(Glibc)
    public import Glibc
#elseif canImport(Darwin)
    public import Darwin
#endif

/// A file opened read-only and read at explicit offsets (`pread`), so large files are never loaded whole.
///
/// ``status`` is taken once, at open. The descriptor is closed when the object is released. Reads do not move a
/// shared position, so one file may be read from several threads at once.
public final class ReadOnlyFile: Sendable {
    /// The open descriptor (valid while this object lives).
    public let descriptor: FileDescriptor
    /// `fstat` at open time.
    public let status: stat

    /// Opens `path` read-only; `flags` adds to `O_RDONLY` (for example `O_NOFOLLOW`).
    ///
    /// Any kind of file opens (a directory too): check ``isRegularFile`` when only regular files make sense.
    public init(path: String, flags: Int32 = 0) throws(SystemCallError) {
        let descriptor = try FileDescriptor.open(path, O_RDONLY | flags)
        do {
            status = try descriptor.status()
        } catch {
            try? descriptor.close()
            throw error
        }
        self.descriptor = descriptor
    }

    deinit { try? descriptor.close() }

    /// The path the file was opened for.
    public var path: String { descriptor.path }
    /// Size in bytes at open time.
    public var size: Int64 { Int64(status.st_size) }
    /// True for a regular file (not a directory, device, pipe or socket).
    public var isRegularFile: Bool { (status.st_mode & S_IFMT) == S_IFREG }

    /// Reads at `offset` into `buffer` until it is full or the file ends; returns the number of bytes read.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SystemCallError) -> Int {
        try descriptor.read(into: buffer, at: offset)
    }

    /// Up to `count` bytes at `offset`; fewer only at the end of the file.
    public func read(upTo count: Int, at offset: Int64) throws(SystemCallError) -> [UInt8] {
        try descriptor.read(upTo: count, at: offset)
    }
}
