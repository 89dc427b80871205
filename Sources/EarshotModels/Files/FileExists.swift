#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// True when `path` exists; sets `isDirectory` (follows symbolic links).
func fileExists(_ path: String, isDirectory: inout Bool) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return false }
    isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
    return true
}
