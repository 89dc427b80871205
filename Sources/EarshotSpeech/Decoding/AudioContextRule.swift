/// How many encoder positions a clip needs: whisper's encoder sees 30 s as 1500 positions (20 ms each), and
/// whisper.cpp's `audio_ctx` lets it run on fewer, so a 3 s clip need not pay for 30 s.
///
/// The rule (measured, see docs/speech.md): positions = the clip's own length in positions plus ``margin``,
/// rounded up to a multiple of ``granularity``, never below ``minimum``, and the full window when that reaches
/// 1500 or the clip is longer than 30 s.
public struct AudioContextRule: Sendable, Hashable {
    /// Positions added after the clip's end, so the decoder sees silence after the last word.
    public var margin: Int
    /// Rounding step (keeps the number of distinct encoder graph sizes small).
    public var granularity: Int
    /// The smallest window used.
    public var minimum: Int

    /// The chosen rule.
    public static let standard = AudioContextRule(margin: 128, granularity: 64, minimum: 384)

    /// Creates a rule.
    public init(margin: Int, granularity: Int, minimum: Int) {
        self.margin = margin
        self.granularity = granularity
        self.minimum = minimum
    }

    /// whisper.cpp's `audio_ctx` for `sampleCount` samples at 16 kHz (0 = the full window).
    public func positions(forSamples sampleCount: Int, fullWindow: Int = 1500) -> Int {
        guard sampleCount < 30 * 16_000 else { return 0 }
        let needed = (sampleCount * fullWindow + 30 * 16_000 - 1) / (30 * 16_000)
        let padded = max(minimum, needed + margin)
        let rounded = (padded + granularity - 1) / granularity * granularity
        return rounded >= fullWindow ? 0 : rounded
    }
}
