import Foundation

/// A simple adaptive energy voice-activity detector (placeholder until the speech engine's Silero VAD is shared).
///
/// 30 ms frames every 10 ms; log energy compared with a threshold set between the noise floor (10th percentile) and
/// the speech level (95th percentile); gaps shorter than `minGap` are bridged, regions shorter than `minSpeech`
/// dropped, each region padded by `padding`. Regions are sample ranges into the input.
struct EnergyVAD: Sendable {
    var frame = 480
    var hop = 160
    /// Fraction of the way from the noise floor to the speech level (in dB) where the threshold sits.
    var thresholdPosition: Double = 0.4
    var minGap = 0.3
    var minSpeech = 0.25
    var padding = 0.05

    func speechRegions(_ samples: [Float], sampleRate: Int = 16_000) -> [Range<Int>] {
        guard samples.count >= frame else { return [] }
        let frames = 1 + (samples.count - frame) / hop
        var db = [Double](repeating: 0, count: frames)
        for f in 0..<frames {
            var sum: Double = 0
            for i in (f * hop)..<(f * hop + frame) { sum += Double(samples[i]) * Double(samples[i]) }
            db[f] = 10 * log10(sum / Double(frame) + 1e-10)
        }
        let sorted = db.sorted()
        let floor = sorted[frames / 10], level = sorted[min(frames - 1, frames * 95 / 100)]
        guard level - floor > 6 else { return level > -50 ? [0..<samples.count] : [] }
        let threshold = floor + thresholdPosition * (level - floor)
        var regions: [(Int, Int)] = []  // frame ranges
        var start: Int?
        for f in 0..<frames {
            if db[f] >= threshold {
                if start == nil { start = f }
            } else if let s = start {
                regions.append((s, f))
                start = nil
            }
        }
        if let s = start { regions.append((s, frames)) }
        let gapFrames = Int(minGap * Double(sampleRate) / Double(hop))
        var merged: [(Int, Int)] = []
        for r in regions {
            if let last = merged.last, r.0 - last.1 <= gapFrames {
                merged[merged.count - 1].1 = r.1
            } else {
                merged.append(r)
            }
        }
        let minFrames = Int(minSpeech * Double(sampleRate) / Double(hop))
        let pad = Int(padding * Double(sampleRate))
        return merged.filter { $0.1 - $0.0 >= minFrames }.map { r in
            max(0, r.0 * hop - pad)..<min(samples.count, r.1 * hop + frame + pad)
        }
    }
}
