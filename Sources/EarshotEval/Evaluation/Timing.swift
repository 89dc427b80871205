import EarshotCore

/// How long recognition took, for the elapsed-time and real-time-factor figures.
public struct Timing: Sendable, Hashable, Codable {
    /// Wall-clock seconds spent recognising.
    public var elapsedSeconds: Double
    /// Seconds of audio recognised, when known.
    public var audioSeconds: Double?

    /// Creates timing figures from durations.
    public init(elapsed: Duration, audio: Duration? = nil) {
        self.elapsedSeconds = elapsed.seconds
        self.audioSeconds = audio?.seconds
    }

    /// Real-time factor = elapsed / audio duration (below 1 is faster than real time); nil without audio length.
    public var realTimeFactor: Double? {
        guard let audioSeconds, audioSeconds > 0 else { return nil }
        return elapsedSeconds / audioSeconds
    }
}
