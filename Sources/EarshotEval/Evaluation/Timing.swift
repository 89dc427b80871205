/// How long recognition took, for the elapsed-time and real-time-factor figures.
public struct Timing: Sendable, Hashable, Codable {
    /// Wall-clock seconds spent recognising.
    public var elapsedSeconds: Double
    /// Seconds of audio recognised, when known.
    public var audioSeconds: Double?

    /// Creates timing figures from durations.
    public init(elapsed: Duration, audio: Duration? = nil) {
        self.elapsedSeconds = Self.seconds(elapsed)
        self.audioSeconds = audio.map(Self.seconds)
    }

    /// Real-time factor = elapsed / audio duration (below 1 is faster than real time); nil without audio length.
    public var realTimeFactor: Double? {
        guard let audioSeconds, audioSeconds > 0 else { return nil }
        return elapsedSeconds / audioSeconds
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
