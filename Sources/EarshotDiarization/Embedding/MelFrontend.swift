import Foundation

/// Resemblyzer's frontend: `librosa.feature.melspectrogram(y, sr=16000, n_fft=400, hop_length=160, n_mels=40)`,
/// i.e. a centred STFT (zero padding of n_fft/2 on both sides, periodic Hann window), power spectrum, Slaney mel
/// filter bank with Slaney normalisation. Not a log-mel: the encoder eats linear power.
///
/// The 400-point DFT is one sgemm against a cos|sin basis (n_fft is not a power of two; at ~100 GFLOPS this costs
/// about 0.3 ms per second of audio).
struct MelFrontend: Sendable {
    static let sampleRate = 16_000
    static let fftSize = 400
    static let hop = 160
    static let melCount = 40
    static let binCount = fftSize / 2 + 1

    /// fftSize × (2·binCount): windowed cos | -sin basis, row-major.
    private let basis: [Float]
    /// binCount × melCount filter bank (transposed librosa weights), row-major.
    private let filters: [Float]

    init() {
        let n = Self.fftSize, bins = Self.binCount
        var basis = [Float](repeating: 0, count: n * 2 * bins)
        for t in 0..<n {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(t) / Double(n))
            for k in 0..<bins {
                let angle = 2 * Double.pi * Double(k * t % n) / Double(n)
                basis[t * 2 * bins + k] = Float(window * cos(angle))
                basis[t * 2 * bins + bins + k] = Float(-window * sin(angle))
            }
        }
        self.basis = basis
        let weights = Self.slaneyMelFilters()
        var filters = [Float](repeating: 0, count: bins * Self.melCount)
        for m in 0..<Self.melCount {
            for k in 0..<bins { filters[k * Self.melCount + m] = Float(weights[m][k]) }
        }
        self.filters = filters
    }

    /// Number of frames librosa returns for `sampleCount` samples (centred STFT).
    static func frameCount(sampleCount: Int) -> Int { 1 + sampleCount / hop }

    /// Mel power spectrogram, frames × 40 row-major.
    func melSpectrogram(_ samples: ArraySlice<Float>) -> [Float] {
        let n = Self.fftSize, hop = Self.hop, bins = Self.binCount
        let frames = Self.frameCount(sampleCount: samples.count)
        // Centred framing with zero padding ("constant" pad mode).
        var framed = [Float](repeating: 0, count: frames * n)
        let base = samples.startIndex
        samples.withContiguousStorageIfAvailable { src in
            for f in 0..<frames {
                let start = f * hop - n / 2
                let lo = max(0, -start), hi = min(n, samples.count - start)
                if lo < hi {
                    for t in lo..<hi { framed[f * n + t] = src[start + t] }
                }
            }
        }
            ?? {
                for f in 0..<frames {
                    let start = f * hop - n / 2
                    for t in 0..<n where start + t >= 0 && start + t < samples.count {
                        framed[f * n + t] = samples[base + start + t]
                    }
                }
            }()
        var spectrum = [Float](repeating: 0, count: frames * 2 * bins)
        sgemm(m: frames, n: 2 * bins, k: n, a: framed, lda: n, b: basis, ldb: 2 * bins, c: &spectrum, ldc: 2 * bins)
        var power = [Float](repeating: 0, count: frames * bins)
        for f in 0..<frames {
            for k in 0..<bins {
                let re = spectrum[f * 2 * bins + k], im = spectrum[f * 2 * bins + bins + k]
                power[f * bins + k] = re * re + im * im
            }
        }
        var mel = [Float](repeating: 0, count: frames * Self.melCount)
        sgemm(
            m: frames, n: Self.melCount, k: bins, a: power, lda: bins, b: filters, ldb: Self.melCount, c: &mel,
            ldc: Self.melCount)
        return mel
    }

    /// `librosa.filters.mel(sr=16000, n_fft=400, n_mels=40)` (htk=False, norm="slaney"): melCount × binCount.
    static func slaneyMelFilters() -> [[Double]] {
        let fSp = 200.0 / 3, minLogHz = 1000.0, minLogMel = minLogHz / fSp, logStep = log(6.4) / 27
        func hzToMel(_ f: Double) -> Double { f < minLogHz ? f / fSp : minLogMel + log(f / minLogHz) / logStep }
        func melToHz(_ m: Double) -> Double { m < minLogMel ? fSp * m : minLogHz * exp(logStep * (m - minLogMel)) }
        let bins = binCount
        let fftFreqs = (0..<bins).map { Double($0) * Double(sampleRate) / Double(fftSize) }
        let lo = hzToMel(0), hi = hzToMel(Double(sampleRate) / 2)
        let melF = (0..<(melCount + 2)).map { melToHz(lo + (hi - lo) * Double($0) / Double(melCount + 1)) }
        var weights = [[Double]](repeating: [Double](repeating: 0, count: bins), count: melCount)
        for i in 0..<melCount {
            let enorm = 2 / (melF[i + 2] - melF[i])
            for k in 0..<bins {
                let lower = (fftFreqs[k] - melF[i]) / (melF[i + 1] - melF[i])
                let upper = (melF[i + 2] - fftFreqs[k]) / (melF[i + 2] - melF[i + 1])
                weights[i][k] = max(0, min(lower, upper)) * enorm
            }
        }
        return weights
    }
}
