/// A piece of text attributed to a speaker, for cpWER.
public struct SpeakerUtterance: Sendable, Hashable, Codable {
    /// The speaker label.
    public var speaker: String
    /// What the speaker said.
    public var text: String

    /// Creates an utterance.
    public init(speaker: String, text: String) {
        self.speaker = speaker
        self.text = text
    }
}
