#if canImport(Glibc)
    import Glibc
#endif
import Dispatch

/// Runs a long-lived operation and cancels it on the first SIGTERM or SIGINT; a second signal exits at once.
enum SignalHandling {
    static func runUntilTerminated(_ operation: @escaping @Sendable () async throws -> Void) async throws {
        try await cancellingOnInterrupt(operation)
    }

    /// Runs `operation` and returns its result; the first SIGTERM or SIGINT cancels it, a second exits at once.
    static func cancellingOnInterrupt<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws
        -> T
    {
        let task = Task { try await operation() }
        let queue = DispatchQueue(label: "earshot.signals")
        var sources: [any DispatchSourceSignal] = []
        // Touched only from the serial `queue`.
        nonisolated(unsafe) var received = false
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                if received { _exit(130) }  // at once: no exit handlers under running threads
                received = true
                task.cancel()
            }
            source.resume()
            sources.append(source)
        }
        defer { sources.forEach { $0.cancel() } }
        return try await task.value
    }
}
