import EarshotCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension AudioError {
    /// The audio error for a failed system call: `.notFound` for a missing file, `.io` otherwise (a full disk
    /// said in words), keeping the call in ``underlying``.
    init(_ failure: SystemCallError) {
        let path = failure.path
        if failure.isNotFound {
            self.init(.notFound, "no such file: \(path)", underlying: failure)
        } else if failure.code == ENOSPC {
            self.init(.io, "\(path): no space left on the device", underlying: failure)
        } else {
            self.init(.io, "\(path): \(failure.call) failed: \(failure.reason)", underlying: failure)
        }
    }
}

/// Runs file-system calls, reporting a failure as the ``AudioError`` for it.
func fileSystem<T>(_ body: () throws(SystemCallError) -> T) throws(AudioError) -> T {
    do {
        return try body()
    } catch {
        throw AudioError(error)
    }
}
