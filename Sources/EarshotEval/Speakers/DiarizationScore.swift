/// Diarization error rate and its parts, in seconds of speaker time.
///
/// DER = (missed speech + false alarm + speaker confusion) / scored reference speaker time. Overlapping
/// reference speakers each count: two people talking for one second are two seconds of speaker time.
public struct DiarizationScore: Sendable, Hashable, Codable {
    /// Reference speaker time outside the collars (the denominator).
    public var scoredSpeakerTime: Double
    /// Reference speaker time the hypothesis left without a speaker.
    public var missedSpeech: Double
    /// Hypothesis speaker time where the reference has fewer (or no) speakers.
    public var falseAlarm: Double
    /// Speaker time attributed to the wrong speaker after the optimal mapping.
    public var speakerConfusion: Double
    /// Reference speaker → hypothesis speaker chosen by the optimal mapping (per recording: `recording/speaker`
    /// keys when several recordings are scored).
    public var mapping: [String: String]
    /// The collar used, in seconds on each side of every reference boundary.
    public var collar: Double

    /// (missed + false alarm + confusion) / scored time; 0 when nothing was scored.
    public var errorRate: Double {
        scoredSpeakerTime > 0 ? (missedSpeech + falseAlarm + speakerConfusion) / scoredSpeakerTime : 0
    }
}
