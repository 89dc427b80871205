/// One recognised segment, as a recogniser returns it.
public struct HypothesisSegment: Sendable, Hashable, Codable {
    /// The recognised text.
    public var text: String
    /// The speaker label, when the recogniser attributed one.
    public var speaker: String?
    /// Start time in milliseconds from the start of the audio, when known.
    public var startMilliseconds: Int?
    /// End time in milliseconds from the start of the audio, when known.
    public var endMilliseconds: Int?

    /// Creates a segment.
    public init(text: String, speaker: String? = nil, startMilliseconds: Int? = nil, endMilliseconds: Int? = nil) {
        self.text = text
        self.speaker = speaker
        self.startMilliseconds = startMilliseconds
        self.endMilliseconds = endMilliseconds
    }
}
