/// The result of transcribing one recording.
///
/// Times are integer milliseconds from the start of the samples given to the engine (VAD never shifts them).
public struct Transcript: Sendable, Hashable, Codable {
    /// One stretch of text with its times, as whisper decodes it (usually a sentence or a clause).
    public struct Segment: Sendable, Hashable, Codable {
        /// Speaker label, when diarization has assigned one.
        public var speaker: String?
        /// Start, in milliseconds.
        public var startMs: Int
        /// End, in milliseconds.
        public var endMs: Int
        /// The text, trimmed.
        public var text: String
        /// Words with times, when word timestamps were requested (otherwise empty).
        public var words: [Word]
        /// The decoder's probability that the window holding this segment has no speech (0…1).
        public var noSpeechProbability: Double
        /// Mean log-probability of the segment's text tokens (closer to 0 is more confident).
        public var averageLogProbability: Double
        /// The text tokens with their ids and log-probabilities, when token details were requested
        /// (``TranscriptionOptions/tokenDetails``); otherwise empty. Encoded only when not empty.
        public var tokens: [Token]

        /// Creates a segment.
        public init(
            speaker: String? = nil, startMs: Int, endMs: Int, text: String, words: [Word] = [],
            noSpeechProbability: Double = 0, averageLogProbability: Double = 0, tokens: [Token] = []
        ) {
            self.speaker = speaker
            self.startMs = startMs
            self.endMs = endMs
            self.text = text
            self.words = words
            self.noSpeechProbability = noSpeechProbability
            self.averageLogProbability = averageLogProbability
            self.tokens = tokens
        }

        /// How well the text compresses (``CompressionRatio``): above 2.4 suggests a repetitive, looping decode.
        public var compressionRatio: Double { CompressionRatio.of(text) }

        enum CodingKeys: String, CodingKey {
            case speaker, text, words, tokens
            case startMs = "start_ms"
            case endMs = "end_ms"
            case noSpeechProbability = "no_speech_prob"
            case averageLogProbability = "avg_logprob"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            speaker = try container.decodeIfPresent(String.self, forKey: .speaker)
            startMs = try container.decode(Int.self, forKey: .startMs)
            endMs = try container.decode(Int.self, forKey: .endMs)
            text = try container.decode(String.self, forKey: .text)
            words = try container.decodeIfPresent([Word].self, forKey: .words) ?? []
            noSpeechProbability = try container.decodeIfPresent(Double.self, forKey: .noSpeechProbability) ?? 0
            averageLogProbability = try container.decodeIfPresent(Double.self, forKey: .averageLogProbability) ?? 0
            tokens = try container.decodeIfPresent([Token].self, forKey: .tokens) ?? []
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(speaker, forKey: .speaker)
            try container.encode(startMs, forKey: .startMs)
            try container.encode(endMs, forKey: .endMs)
            try container.encode(text, forKey: .text)
            try container.encode(words, forKey: .words)
            try container.encode(noSpeechProbability, forKey: .noSpeechProbability)
            try container.encode(averageLogProbability, forKey: .averageLogProbability)
            if !tokens.isEmpty { try container.encode(tokens, forKey: .tokens) }
        }
    }

    /// One decoded text token: its id in the model's vocabulary, its text piece and its log-probability.
    public struct Token: Sendable, Hashable, Codable {
        /// The vocabulary id.
        public var id: Int
        /// The token's text (a piece of a word, with its leading space when it starts one); may be a partial
        /// UTF-8 sequence rendered with replacement characters.
        public var text: String
        /// The token's bytes (a multi-byte character may span tokens).
        public var bytes: [UInt8]
        /// Natural log of the token's probability.
        public var logprob: Double

        /// Creates a token.
        public init(id: Int, text: String, bytes: [UInt8], logprob: Double) {
            self.id = id
            self.text = text
            self.bytes = bytes
            self.logprob = logprob
        }
    }

    /// One word with its times and the decoder's confidence.
    public struct Word: Sendable, Hashable, Codable {
        /// Start, in milliseconds.
        public var startMs: Int
        /// End, in milliseconds.
        public var endMs: Int
        /// The word as decoded, without surrounding spaces (punctuation stays attached).
        public var text: String
        /// Probability of the word: the product of its tokens' probabilities (0…1).
        public var probability: Double

        /// Creates a word.
        public init(startMs: Int, endMs: Int, text: String, probability: Double) {
            self.startMs = startMs
            self.endMs = endMs
            self.text = text
            self.probability = probability
        }

        enum CodingKeys: String, CodingKey {
            case text, probability
            case startMs = "start_ms"
            case endMs = "end_ms"
        }
    }

    /// Language of the text's source: the detected one, or the one given in the options.
    public var language: String
    /// Probability of ``language`` from detection; nil when the language was given (or the model is English-only).
    public var languageProbability: Double?
    /// Length of the input, in milliseconds.
    public var durationMs: Int
    /// Milliseconds of speech VAD kept (equals ``durationMs`` when VAD is off).
    public var speechMs: Int
    /// The segments, in time order.
    public var segments: [Segment]
    /// What the user should know about how the audio was read (a WAV that was converted, a truncated file);
    /// empty when there is nothing to say. Encoded only when not empty.
    public var warnings: [String]

    /// Creates a transcript.
    public init(
        language: String, languageProbability: Double?, durationMs: Int, speechMs: Int, segments: [Segment],
        warnings: [String] = []
    ) {
        self.language = language
        self.languageProbability = languageProbability
        self.durationMs = durationMs
        self.speechMs = speechMs
        self.segments = segments
        self.warnings = warnings
    }

    /// All segment texts joined by single spaces.
    public var text: String { segments.map(\.text).filter { !$0.isEmpty }.joined(separator: " ") }

    enum CodingKeys: String, CodingKey {
        case language, segments, warnings
        case languageProbability = "language_probability"
        case durationMs = "duration_ms"
        case speechMs = "speech_ms"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        language = try container.decode(String.self, forKey: .language)
        languageProbability = try container.decodeIfPresent(Double.self, forKey: .languageProbability)
        durationMs = try container.decode(Int.self, forKey: .durationMs)
        speechMs = try container.decode(Int.self, forKey: .speechMs)
        segments = try container.decode([Segment].self, forKey: .segments)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(language, forKey: .language)
        try container.encodeIfPresent(languageProbability, forKey: .languageProbability)
        try container.encode(durationMs, forKey: .durationMs)
        try container.encode(speechMs, forKey: .speechMs)
        try container.encode(segments, forKey: .segments)
        if !warnings.isEmpty { try container.encode(warnings, forKey: .warnings) }
    }
}
