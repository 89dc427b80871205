/// One side of a face-to-face dialogue (`intent=dialogue`): the language its speaker talks in (its utterances are
/// transcribed in it, and the other side's utterances are translated into it), the voice that speaks translations to
/// it, and whether they are spoken at all.
public struct DialogueChannel: Sendable, Hashable {
    /// ISO 639-1 code of the speaker's language.
    public var language: String
    /// One of OpenAI's voice names (`alloy`, `nova`, …): how translations are spoken to this side.
    public var voice: String
    /// Whether translations of the other side's utterances are spoken to this side (audio delta events).
    public var speak: Bool

    public init(language: String, voice: String = "alloy", speak: Bool = true) {
        self.language = language
        self.voice = voice
        self.speak = speak
    }

    var json: JSONValue {
        ["language": .string(language), "voice": .string(voice), "speak": .bool(speak)]
    }
}
