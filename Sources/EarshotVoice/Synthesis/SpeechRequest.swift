/// What to say and how: the input of every ``SpeechSynthesizer``.
public struct SpeechRequest: Sendable, Hashable {
    /// The text to speak (plain text, not SSML).
    public var text: String
    /// The language of ``text`` as an ISO 639-1 code or BCP 47 tag (`en`, `fr`, `pt-BR`); nil lets the
    /// synthesizer choose (espeak-ng speaks English, a remote provider detects it).
    public var language: String?
    /// One of ``StandardVoice``'s names (`alloy`, `nova`, …), which every synthesizer accepts; nil for
    /// ``StandardVoice/alloy``.
    public var voice: String?
    /// Speaking rate relative to the voice's normal pace: 0.25…4 (OpenAI's range), 1 by default.
    public var speed: Double
    /// Extra instructions on how to speak (tone, accent), passed to providers that follow them
    /// (`gpt-4o-mini-tts`); espeak-ng cannot and ignores them.
    public var instructions: String?

    /// Speeds every synthesizer accepts.
    public static let speeds: ClosedRange<Double> = 0.25...4

    /// Creates a request.
    public init(
        text: String, language: String? = nil, voice: String? = nil, speed: Double = 1, instructions: String? = nil
    ) {
        self.text = text
        self.language = language
        self.voice = voice
        self.speed = speed
        self.instructions = instructions
    }

    /// Throws ``VoiceError/Code/invalidInput`` for empty text or a speed outside ``speeds``.
    func validate() throws(VoiceError) {
        guard !text.allSatisfy(\.isWhitespace) else {
            throw VoiceError(.invalidInput, "there is no text to speak: the input is empty")
        }
        guard Self.speeds.contains(speed), speed.isFinite else {
            throw VoiceError(.invalidInput, "speed \(speed) is outside 0.25…4")
        }
    }
}
