#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a process still runs (a discovery file's owner): signal 0 checks without sending anything.
enum ProcessLiveness {
    static func isAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        #if canImport(Glibc) || canImport(Darwin)
            return kill(pid, 0) == 0 || errno == EPERM
        #else
            return true
        #endif
    }
}
