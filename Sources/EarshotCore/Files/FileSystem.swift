#if canImport(Glibc)
    public import Glibc
#elseif canImport(Darwin)
    public import Darwin
#endif

/// The system calls Earshot makes on paths (as opposed to open files, see ``FileDescriptor``).
///
/// Each throws ``SystemCallError`` naming the call and the path; lookups that may legitimately find nothing
/// return nil or false instead.
public enum FileSystem {
    /// `lstat` of `path`, or nil when nothing exists there (or a parent is not a directory).
    public static func linkStatus(_ path: String) throws(SystemCallError) -> stat? {
        var info = stat()
        if lstat(path, &info) == 0 { return info }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw SystemCallError("lstat", path: path, code: errno)
    }

    /// Renames `source` to `destination`, atomically replacing a file there (`rename`).
    ///
    /// The error names the destination.
    public static func rename(_ source: String, to destination: String) throws(SystemCallError) {
        guard systemRename(source, destination) == 0 else {
            throw SystemCallError("rename", path: destination, code: errno)
        }
    }

    /// Removes the file at `path`; true when something was removed, false when nothing was there.
    @discardableResult
    public static func unlinkIfPresent(_ path: String) throws(SystemCallError) -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT || errno == ENOTDIR { return false }
        throw SystemCallError("unlink", path: path, code: errno)
    }

    /// Creates the directory `path` with `mode`; false when a directory (or anything else) is already there.
    @discardableResult
    public static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(SystemCallError) -> Bool {
        if mkdir(path, mode) == 0 { return true }
        if errno == EEXIST { return false }
        throw SystemCallError("mkdir", path: path, code: errno)
    }

    /// fsyncs the directory `path`, so that files created, renamed or removed in it survive a power loss.
    public static func syncDirectory(_ path: String) throws(SystemCallError) {
        let directory = try FileDescriptor.open(path.isEmpty ? "/" : path, O_RDONLY | O_DIRECTORY)
        defer { try? directory.close() }
        try directory.sync()
    }

    /// The directory part of `path` (`/a/b` → `/a`, `b` → `.`, `/b` → `/`).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
