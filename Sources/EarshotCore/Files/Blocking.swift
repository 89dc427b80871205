public import Dispatch

/// Runs blocking work (file-system calls, `fsync`) on `queue`, libdispatch's threads rather than the cooperative
/// pool, and resumes the caller with its result or error.
public func blocking<T: Sendable>(on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T) async throws
    -> T
{
    try await withCheckedThrowingContinuation { continuation in
        queue.async { continuation.resume(with: Result { try work() }) }
    }
}
