import Synchronization

/// A one-way flag set when the consumer cancels; read by whisper.cpp's abort callbacks on the compute thread.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Requests cancellation.
    func cancel() { flag.store(true, ordering: .relaxed) }

    /// Whether cancellation was requested.
    var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
