public import EarshotCore
public import Foundation

/// Swift port of Resemblyzer 0.1.4's `VoiceEncoder.embed_utterance` on OpenBLAS (256-d speaker vectors).
///
/// Per clip: volume normalisation to -30 dBFS (increase only, as `preprocess_wav`), zero padding, 40-mel
/// spectrogram, partial utterances of 160 frames (1.6 s) every 77 frames (rate 1.3/s; a last partial covering
/// < 75 % is dropped unless it is the only one), LSTM encoder per partial, mean of the partial embeddings,
/// L2 normalisation. Resemblyzer's webrtcvad silence trimming is not ported: the diarizer feeds speech regions.
/// Matches the Python package with cosine ≥ 0.99 (Tests/Fixtures/diarization/resemblyzer_reference.json).
///
/// Thread-safety: immutable after `init`; `embed` may run concurrently. It is blocking CPU work.
public final class ResemblyzerEmbedder: SpeakerEmbedder {
    static let partialFrames = 160
    static let frameStep = 77  // round((16000 / 1.3) / 160)
    static let minCoverage = 0.75
    static let targetDBFS: Float = -30
    /// Partials run through the LSTM together (bounded memory: ~5 MB of gates per 8 partials).
    static let batchSize = 32

    public let dimension = LSTMEncoder.embedding
    private let frontend = MelFrontend()
    private let encoder: LSTMEncoder

    /// Loads the converted weights (default: ``ModelHome/speakerWeights`` of the process's home,
    /// `$EARSHOT_HOME/models/resemblyzer-0.1.4.eswt`). Throws `.weightsMissing` (with the setup command) or
    /// `.weightsInvalid`.
    ///
    /// `blasThreads` sets OpenBLAS's thread count for the whole process (OpenBLAS 0.3.21 has no per-call setting);
    /// nil, the default, leaves it alone because the speech engine shares the library. Measured on this 2-vCPU
    /// machine: the LSTM's per-time-step products are small (≤ 32 × 256 × 1024), and with 2 threads OpenBLAS's
    /// threading overhead gave 1.4 s per audio minute against 0.6–1.0 s with 1.
    public init(weightsURL: URL = ModelHome.current.speakerWeights, blasThreads: Int? = nil)
        throws(DiarizationError)
    {
        encoder = try LSTMEncoder(weights: WeightsFile(url: weightsURL))
        if let blasThreads { setBLASThreads(max(1, blasThreads)) }
    }

    public func embed(_ clips: [ArraySlice<Float>]) throws(DiarizationError) -> [[Float]] {
        // Mel partials of every clip, then batched through the encoder.
        var partials: [[Float]] = []
        var owner: [Int] = []
        for (index, clip) in clips.enumerated() {
            guard !clip.isEmpty else { throw DiarizationError(.invalidInput, "clip \(index) is empty") }
            for p in Self.partialMels(of: Self.normalizedVolume(clip), frontend: frontend) {
                partials.append(p)
                owner.append(index)
            }
        }
        let frame = Self.partialFrames * MelFrontend.melCount
        var sums = [[Float]](repeating: [Float](repeating: 0, count: dimension), count: clips.count)
        var start = 0
        while start < partials.count {
            if Task.isCancelled { throw DiarizationError(.cancelled, "speaker embedding was cancelled") }
            let end = min(partials.count, start + Self.batchSize)
            var mels = [Float]()
            mels.reserveCapacity((end - start) * frame)
            for p in partials[start..<end] { mels += p }
            let out = encoder.forward(mels: mels, batch: end - start, steps: Self.partialFrames)
            for b in 0..<(end - start) {
                for j in 0..<dimension { sums[owner[start + b]][j] += out[b * dimension + j] }
            }
            start = end
        }
        return sums.map { v in
            let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return norm > 0 ? v.map { $0 / norm } : v
        }
    }

    /// `normalize_volume(wav, -30, increase_only=True)`.
    static func normalizedVolume(_ clip: ArraySlice<Float>) -> [Float] {
        var sum: Double = 0
        for x in clip { sum += Double(x) * Double(x) }
        let rms = (sum / Double(clip.count)).squareRoot()
        guard rms > 0 else { return Array(clip) }
        let change = Double(targetDBFS) - 20 * log10(rms)
        guard change > 0 else { return Array(clip) }
        let gain = Float(pow(10, change / 20))
        return clip.map { $0 * gain }
    }

    /// `compute_partial_slices(len, rate=1.3, min_coverage=0.75)` + padding + mel: one 160 × 40 block per partial.
    static func partialMels(of wav: [Float], frontend: MelFrontend) -> [[Float]] {
        let hop = MelFrontend.hop
        let frames = Int((Double(wav.count + 1) / Double(hop)).rounded(.up))
        let steps = max(1, frames - partialFrames + frameStep + 1)
        var starts = Array(stride(from: 0, to: steps, by: frameStep))
        let lastStart = starts[starts.count - 1]
        let coverage = Double(wav.count - lastStart * hop) / Double(partialFrames * hop)
        if coverage < minCoverage && starts.count > 1 { starts.removeLast() }
        let needed = (starts[starts.count - 1] + partialFrames) * hop
        var padded = wav
        if needed >= wav.count { padded += [Float](repeating: 0, count: needed - wav.count) }
        let mel = frontend.melSpectrogram(padded[...])
        let width = partialFrames * MelFrontend.melCount
        return starts.map { s in Array(mel[(s * MelFrontend.melCount)..<(s * MelFrontend.melCount + width)]) }
    }
}
