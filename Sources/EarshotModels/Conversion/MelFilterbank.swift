#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whisper's mel filterbank, computed rather than shipped: the Slaney-style triangular filters with Slaney area
/// normalisation that `librosa.filters.mel(sr: 16000, n_fft: 400, n_mels:)` returns and OpenAI ships as
/// `whisper/assets/mel_filters.npz`.
///
/// The arithmetic follows librosa step by step in `Double` and rounds to `Float` where librosa stores into its
/// float32 array (after the triangle, then after normalising), so the values match the shipped file to within
/// one float32 rounding (tests check 1e-6 against the `.npz`).
public struct MelFilterbank: Sendable, Equatable {
    /// Number of mel bands (80 for Whisper up to large-v2, 128 for large-v3).
    public let melCount: Int
    /// Number of FFT bins (`n_fft / 2 + 1` = 201 for Whisper).
    public let binCount: Int
    /// Row-major weights: `weights[mel * binCount + bin]`.
    public let weights: [Float]

    /// Computes the filterbank for Whisper's front end (16 kHz, 400-point FFT, 0…8000 Hz).
    public init(melCount: Int, sampleRate: Int = 16000, fftSize: Int = 400) {
        self.melCount = melCount
        let bins = fftSize / 2 + 1
        binCount = bins
        // np.fft.rfftfreq(n, d = 1 / sr)
        let spacing = 1.0 / (Double(fftSize) * (1.0 / Double(sampleRate)))
        let fftFrequencies = (0..<bins).map { Double($0) * spacing }
        // mel_frequencies(n_mels + 2, fmin 0, fmax sr / 2): linspace in mel, back to hertz
        let minMel = Self.hertzToMel(0)
        let maxMel = Self.hertzToMel(Double(sampleRate) / 2)
        let points = melCount + 2
        let step = (maxMel - minMel) / Double(points - 1)
        var melFrequencies = (0..<points).map { Self.melToHertz(Double($0) * step + minMel) }
        melFrequencies[points - 1] = Self.melToHertz(maxMel)

        var weights = [Float](repeating: 0, count: melCount * bins)
        for mel in 0..<melCount {
            let lowerWidth = melFrequencies[mel + 1] - melFrequencies[mel]
            let upperWidth = melFrequencies[mel + 2] - melFrequencies[mel + 1]
            let norm = 2.0 / (melFrequencies[mel + 2] - melFrequencies[mel])
            for bin in 0..<bins {
                let lower = -(melFrequencies[mel] - fftFrequencies[bin]) / lowerWidth
                let upper = (melFrequencies[mel + 2] - fftFrequencies[bin]) / upperWidth
                let triangle = Float(max(0, min(lower, upper)))
                weights[mel * bins + bin] = Float(Double(triangle) * norm)
            }
        }
        self.weights = weights
    }

    // Slaney's mel scale: linear below 1 kHz (3 mels per 200 Hz), logarithmic above.
    private static let linearStep = 200.0 / 3
    private static let breakHertz = 1000.0
    private static let breakMel = breakHertz / linearStep
    private static let logStep = log(6.4) / 27.0

    static func hertzToMel(_ hertz: Double) -> Double {
        hertz >= breakHertz ? breakMel + log(hertz / breakHertz) / logStep : hertz / linearStep
    }

    static func melToHertz(_ mel: Double) -> Double {
        mel >= breakMel ? breakHertz * exp(logStep * (mel - breakMel)) : linearStep * mel
    }
}
