/// A model that turns a stretch of speech into a fixed-size speaker vector.
///
/// The diarizer only needs this protocol, so a stronger model can replace the Resemblyzer port without touching the
/// pipeline. Implementations must be safe to call from several threads at once (weights immutable, state per call).
public protocol SpeakerEmbedder: Sendable {
    /// Length of every vector this embedder returns.
    var dimension: Int { get }
    /// One L2-normalised embedding per clip. Clips are 16 kHz mono `Float` samples in [-1, 1]; any length ≥ 1 sample.
    ///
    /// Blocking and CPU-bound: call it from a thread you own, not the cooperative pool. Throws
    /// `DiarizationError.invalidInput` for an empty clip and `.cancelled` when the calling task is cancelled
    /// (implementations check between batches).
    func embed(_ clips: [ArraySlice<Float>]) throws(DiarizationError) -> [[Float]]
}

extension SpeakerEmbedder {
    /// The embedding of one clip (see `embed(_:)`).
    public func embed(_ clip: [Float]) throws(DiarizationError) -> [Float] {
        try embed([clip[...]])[0]
    }
}
