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

        /// Creates a segment.
        public init(
            speaker: String? = nil, startMs: Int, endMs: Int, text: String, words: [Word] = [],
            noSpeechProbability: Double = 0, averageLogProbability: Double = 0
        ) {
            self.speaker = speaker
            self.startMs = startMs
            self.endMs = endMs
            self.text = text
            self.words = words
            self.noSpeechProbability = noSpeechProbability
            self.averageLogProbability = averageLogProbability
        }

        enum CodingKeys: String, CodingKey {
            case speaker, text, words
            case startMs = "start_ms"
            case endMs = "end_ms"
            case noSpeechProbability = "no_speech_prob"
            case averageLogProbability = "avg_logprob"
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
