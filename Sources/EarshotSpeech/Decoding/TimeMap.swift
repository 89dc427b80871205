/// Maps a position in the VAD-filtered audio back to the original recording.
///
/// The filtered audio is the speech segments laid end to end with short silent gaps; the map is piecewise
/// linear through the (filtered, original) sample positions of every segment's start and end, so a time inside
/// a gap lands proportionally inside the original silence.
struct TimeMap: Sendable, Hashable {
    /// Knots as (filtered sample, original sample), increasing in both.
    private(set) var knots: [(filtered: Int, original: Int)]

    /// The identity map (VAD off).
    static let identity = TimeMap(knots: [])

    init(knots: [(filtered: Int, original: Int)]) { self.knots = knots }

    static func == (a: TimeMap, b: TimeMap) -> Bool {
        a.knots.elementsEqual(b.knots) { $0.filtered == $1.filtered && $0.original == $1.original }
    }
    func hash(into hasher: inout Hasher) {
        for knot in knots {
            hasher.combine(knot.filtered)
            hasher.combine(knot.original)
        }
    }

    /// The original sample position of filtered position `sample`.
    func original(_ sample: Int) -> Int {
        guard let first = knots.first, let last = knots.last else { return sample }
        if sample <= first.filtered { return first.original - (first.filtered - sample) }
        if sample >= last.filtered { return last.original + (sample - last.filtered) }
        // Binary search for the last knot at or before `sample`.
        var low = 0
        var high = knots.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if knots[middle].filtered <= sample { low = middle } else { high = middle }
        }
        let a = knots[low]
        let b = knots[high]
        guard b.filtered > a.filtered else { return a.original }
        let fraction = Double(sample - a.filtered) / Double(b.filtered - a.filtered)
        return a.original + Int((fraction * Double(b.original - a.original)).rounded())
    }

    /// The original time in milliseconds of filtered time `centiseconds` (whisper.cpp's unit).
    func originalMilliseconds(centiseconds: Int64) -> Int {
        original(Int(centiseconds) * 160) / 16
    }
}
