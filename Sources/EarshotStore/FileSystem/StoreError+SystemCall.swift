internal import EarshotCore
internal import Foundation

extension StoreError {
    /// The store's error for a failed system call: `.notFound` when nothing is there, `.conflict` when a file or
    /// directory is in the way, `.diskFull` when there is no space left, `.io` otherwise; the message names the
    /// blob when there is one.
    init(_ failure: SystemCallError, key: BlobKey? = nil) {
        let subject = key.map { "blob \($0) (\(failure.path))" } ?? failure.path
        let code: Code
        switch failure.code {
        case ENOENT: code = .notFound
        case EEXIST, ENOTDIR, EISDIR, ENOTEMPTY: code = .conflict
        case ENOSPC, EDQUOT: code = .diskFull
        default: code = .io
        }
        self.init(code, "\(failure.call) failed for \(subject): \(failure.reason)", underlying: failure)
    }
}

/// Runs file-system calls, reporting a failure as the ``StoreError`` for it (naming `key` when given).
func fileSystem<T>(key: BlobKey? = nil, _ body: () throws(SystemCallError) -> T) throws(StoreError) -> T {
    do {
        return try body()
    } catch {
        throw StoreError(error, key: key)
    }
}
