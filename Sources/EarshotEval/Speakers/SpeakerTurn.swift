/// One stretch of time during which one speaker talks (one RTTM `SPEAKER` line).
///
/// Times are seconds from the start of the recording, as in RTTM.
public struct SpeakerTurn: Sendable, Hashable, Codable {
    /// The recording the turn belongs to (RTTM's second field); turns are scored per recording.
    public var recording: String
    /// The speaker label.
    public var speaker: String
    /// Start time in seconds.
    public var start: Double
    /// End time in seconds (start + duration).
    public var end: Double

    /// Creates a turn.
    public init(recording: String = "audio", speaker: String, start: Double, end: Double) {
        self.recording = recording
        self.speaker = speaker
        self.start = start
        self.end = end
    }

    /// The turn of a recognised segment that has a speaker and times, or nil.
    public init?(segment: HypothesisSegment, recording: String = "audio") {
        guard let speaker = segment.speaker, let start = segment.startMilliseconds, let end = segment.endMilliseconds
        else { return nil }
        self.init(recording: recording, speaker: speaker, start: Double(start) / 1000, end: Double(end) / 1000)
    }
}
