import Foundation

/// Comparisons between a decoded signal and its reference.
enum Signals {
    /// Largest absolute difference over the common length.
    static func maxAbsoluteDifference(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    /// The lag (in samples, `candidate[i + lag] ≈ reference[i]`) within ±`maxLag` that maximises the normalised
    /// cross-correlation over one second of speech starting at `start`, and that correlation.
    static func alignment(
        reference: [Float], candidate: [Float], maxLag: Int, start: Int = 16_000, length: Int = 16_000
    )
        -> (lag: Int, correlation: Double)
    {
        reference.withUnsafeBufferPointer { ref in
            candidate.withUnsafeBufferPointer { cand in
                var best = (lag: 0, correlation: -2.0)
                for lag in -maxLag...maxLag {
                    var dot = 0.0
                    var energyRef = 0.0
                    var energyCand = 0.0
                    for index in start..<(start + length) {
                        let other = index + lag
                        guard other >= 0, other < cand.count, index < ref.count else { continue }
                        let x = Double(ref[index])
                        let y = Double(cand[other])
                        dot += x * y
                        energyRef += x * x
                        energyCand += y * y
                    }
                    let correlation = dot / max(1e-12, (energyRef * energyCand).squareRoot())
                    if correlation > best.correlation { best = (lag, correlation) }
                }
                return best
            }
        }
    }

    /// Signal-to-noise ratio in dB of `candidate` (shifted by `lag`) against `reference`, over their overlap.
    static func snr(reference: [Float], candidate: [Float], lag: Int = 0) -> Double {
        var signal = 0.0
        var noise = 0.0
        for index in reference.indices {
            let other = index + lag
            guard other >= 0, other < candidate.count else { continue }
            let x = Double(reference[index])
            let difference = x - Double(candidate[other])
            signal += x * x
            noise += difference * difference
        }
        return 10 * log10(signal / max(noise, 1e-20))
    }

    /// Root mean square.
    static func rms(_ samples: some Collection<Float>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }
}
