public import EarshotSpeech

/// What a live session asks of the speech engine: the text of one utterance.
///
/// The server implements it over its one shared engine and its decode admission (so live sessions, file requests
/// and jobs share the model fairly); tests may use a real engine directly.
public protocol LiveRecognizer: Sendable {
    /// Transcribes `samples` (16 kHz mono) with `settings` for `decode`'s purpose.
    ///
    /// A ``LiveDecode/partial`` or ``LiveDecode/early`` decode may answer nil rather than wait when the machine is
    /// busy (it is only a preview, or work done ahead). A ``LiveDecode/final`` decode waits its turn; it throws when
    /// it cannot be done (the error's description reaches the client in a `failed` event).
    func transcribe(_ samples: [Float], settings: TranscriptionSettings, as decode: LiveDecode) async throws
        -> Recognition?

    /// Checks settings a client chose (a model name it does not know); throws a description of what is wrong.
    func validate(_ settings: TranscriptionSettings) async throws
}

/// What a live decode is for.
public enum LiveDecode: Sendable, Hashable {
    /// A re-decode of a turn still being spoken: only when the engine is idle, without word times.
    case partial
    /// A turn that has just gone quiet, decoded as its final would be, before the silence that ends it is complete
    /// (its result is the final when the turn does end there): only when the engine is idle, with word times.
    case early
    /// A committed item: waits its turn, with word times.
    case final

    /// Whether the decode runs only when the engine is idle (answering nil otherwise).
    public var onlyWhenIdle: Bool { self != .final }
    /// Whether the words' times are wanted.
    public var wordTimes: Bool { self != .partial }
    /// Whether a window that fails the decoder's checks is decoded again at higher temperatures: not for a preview,
    /// which is replaced a second later (the fallback re-decoded a turn's first 0.8 s up to five times, holding the
    /// engine for 1.3 s).
    public var temperatureFallback: Bool { self != .partial }
}

extension TranscriptionOptions {
    /// These options as a live decode uses them: the session's language and prompt, word times for finals and early
    /// finals, and no temperature fallback for a preview. The server's recogniser and `earshot eval --live`'s replay
    /// both decode with them, after the tier's decoding settings.
    public func live(_ settings: TranscriptionSettings, _ decode: LiveDecode) -> TranscriptionOptions {
        var options = self
        if let language = settings.language { options.language = language.lowercased() }
        if let prompt = settings.prompt { options.initialPrompt = prompt }
        options.wordTimestamps = decode.wordTimes
        if !decode.temperatureFallback { options.temperatureIncrement = 0 }
        return options
    }
}

/// The text of an utterance, the language it was decoded in, and (final decodes) its words with their times.
public struct Recognition: Sendable, Hashable {
    public var text: String
    /// The language (ISO code) the engine decoded in: the session's, or the one it detected; nil when unknown.
    public var language: String?
    /// The words with times in milliseconds from the start of the decoded samples (the engine's token timestamps);
    /// empty when the recognizer gives none (partial decodes).
    public var words: [Transcript.Word]

    public init(text: String, language: String? = nil, words: [Transcript.Word] = []) {
        self.text = text
        self.language = language
        self.words = words
    }

    /// What an engine's `transcript` says: its text, its language (nil when the engine gave none) and the words of
    /// its segments (empty when word times were not asked for).
    public init(_ transcript: Transcript) {
        self.init(
            text: transcript.text, language: transcript.language.isEmpty ? nil : transcript.language,
            words: transcript.segments.flatMap(\.words))
    }
}

/// The `input_audio_transcription` settings of a session.
public struct TranscriptionSettings: Sendable, Hashable {
    /// A model name the server knows (`asr-fast`, `asr-pro`, or an OpenAI name mapped to them); nil for the default.
    public var model: String?
    /// The spoken language (ISO code), or nil to detect it.
    public var language: String?
    /// Text that guides the decoder (names, spelling).
    public var prompt: String?

    public init(model: String? = nil, language: String? = nil, prompt: String? = nil) {
        self.model = model
        self.language = language
        self.prompt = prompt
    }
}
