#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call on a file: the call, the path it was made for and the `errno` it set.
///
/// The one error of EarshotCore's file layer (``FileDescriptor``, ``FileSystem``, ``ReadOnlyFile``,
/// ``TemporaryFile``). Modules with an error of their own (`StoreError`, `AudioError`, `ModelError`) turn it into
/// theirs at their boundary, choosing the code from ``isNotFound``/``isOutOfSpace``, and keep it as `underlying`.
/// ``description`` reads `pread /srv/blobs/a: Input/output error`.
public struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system call that failed (`open`, `pread`, `fsync`, `rename`…).
    public let call: String
    /// The path the call was made for (for `rename`, the destination).
    public let path: String
    /// The `errno` value the call set.
    public let code: Int32

    /// An error for `call` on `path` that failed with `errno` `code`.
    public init(_ call: String, path: String, code: Int32) {
        self.call = call
        self.path = path
        self.code = code
    }

    /// The C library's text for ``code`` (`strerror`).
    public var reason: String { String(cString: strerror(code)) }

    /// Nothing exists at the path, or a parent of it is not a directory (`ENOENT`, `ENOTDIR`).
    public var isNotFound: Bool { code == ENOENT || code == ENOTDIR }

    /// The device or the user's quota is full (`ENOSPC`, `EDQUOT`).
    public var isOutOfSpace: Bool { code == ENOSPC || code == EDQUOT }

    public var description: String { "\(call) \(path): \(reason)" }
}
