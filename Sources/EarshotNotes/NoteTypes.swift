/// One timed sentence of a transcript, as summaries and translations see it.
///
/// Times are integer milliseconds from the start of the recording, as on the wire.
public struct NoteSegment: Sendable, Hashable, Codable {
    /// Start, in milliseconds.
    public var startMs: Int
    /// End, in milliseconds.
    public var endMs: Int
    /// Speaker label or name, when the transcript has speakers.
    public var speaker: String?
    /// The text, trimmed.
    public var text: String

    /// Creates a segment.
    public init(startMs: Int, endMs: Int, speaker: String? = nil, text: String) {
        self.startMs = startMs
        self.endMs = endMs
        self.speaker = speaker
        self.text = text
    }

    enum CodingKeys: String, CodingKey {
        case speaker, text
        case startMs = "start_ms"
        case endMs = "end_ms"
    }
}

/// One key point or action item of a summary, with the stretch of the recording it came from.
public struct NotePoint: Sendable, Hashable, Codable {
    /// The point, one sentence.
    public var text: String
    /// Start of the transcript stretch the point is drawn from, in milliseconds.
    public var startMs: Int
    /// End of that stretch, in milliseconds.
    public var endMs: Int

    /// Creates a point.
    public init(text: String, startMs: Int, endMs: Int) {
        self.text = text
        self.startMs = startMs
        self.endMs = endMs
    }

    enum CodingKeys: String, CodingKey {
        case text
        case startMs = "start_ms"
        case endMs = "end_ms"
    }
}

/// How a summary or translation was produced.
public enum NoteMethod: String, Sendable, Hashable, Codable {
    /// A chat-completions language model wrote it.
    case languageModel = "llm"
    /// Sentences ranked and picked from the transcript itself (the fallback when no language model is reachable).
    case extractive
    /// Whisper's own speech-to-English translation.
    case speech
}

/// A summary of a transcript: a short abstract, key points and action items, each pointing into the transcript.
public struct NoteSummary: Sendable, Hashable, Codable {
    /// A few sentences saying what the recording is about.
    public var abstract: String
    /// The main points, in the order they came up.
    public var keyPoints: [NotePoint]
    /// Things someone said they or others would do.
    public var actionItems: [NotePoint]
    /// How it was produced.
    public var method: NoteMethod
    /// The language model used, when `method` is `.languageModel`.
    public var model: String?
    /// Language of the summary text (ISO 639-1), when known.
    public var language: String?
    /// What a reader should know about how it was made, e.g. why it is extractive ("the language model at … is
    /// unreachable"); empty when none. Absent in JSON written before it existed (decodes as empty).
    public var warnings: [String]

    /// Creates a summary.
    public init(
        abstract: String, keyPoints: [NotePoint], actionItems: [NotePoint], method: NoteMethod, model: String? = nil,
        language: String? = nil, warnings: [String] = []
    ) {
        self.abstract = abstract
        self.keyPoints = keyPoints
        self.actionItems = actionItems
        self.method = method
        self.model = model
        self.language = language
        self.warnings = warnings
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        abstract = try container.decode(String.self, forKey: .abstract)
        keyPoints = try container.decode([NotePoint].self, forKey: .keyPoints)
        actionItems = try container.decode([NotePoint].self, forKey: .actionItems)
        method = try container.decode(NoteMethod.self, forKey: .method)
        model = try container.decodeIfPresent(String.self, forKey: .model)
        language = try container.decodeIfPresent(String.self, forKey: .language)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings) ?? []
    }

    enum CodingKeys: String, CodingKey {
        case abstract, method, model, language, warnings
        case keyPoints = "key_points"
        case actionItems = "action_items"
    }
}

/// A transcript translated segment by segment, so every segment keeps its times.
public struct NoteTranslation: Sendable, Hashable, Codable {
    /// The requested target language (ISO 639-1).
    public var targetLanguage: String
    /// The translated segments, one per source segment, same times and speakers.
    public var segments: [NoteSegment]
    /// How it was produced.
    public var method: NoteMethod
    /// The language model used, when `method` is `.languageModel`.
    public var model: String?
    /// The language detected in the output, when it could be detected.
    public var detectedLanguage: String?
    /// What a reader should know about the quality, e.g. "12 of 40 segments are not in ja"; empty when none.
    public var warnings: [String]

    /// Creates a translation.
    public init(
        targetLanguage: String, segments: [NoteSegment], method: NoteMethod, model: String? = nil,
        detectedLanguage: String? = nil, warnings: [String] = []
    ) {
        self.targetLanguage = targetLanguage
        self.segments = segments
        self.method = method
        self.model = model
        self.detectedLanguage = detectedLanguage
        self.warnings = warnings
    }

    enum CodingKeys: String, CodingKey {
        case segments, method, model, warnings
        case targetLanguage = "target_language"
        case detectedLanguage = "detected_language"
    }
}

/// Summarises and translates transcripts: what the records service calls for offline tasks 1 and 2.
///
/// Implementations are safe to call concurrently and honour task cancellation.
public protocol NoteProcessing: Sendable {
    /// Summarises `segments` (in transcript order). `language` is the transcript's language, when known.
    func summarize(_ segments: [NoteSegment], language: String?) async throws -> NoteSummary
    /// Translates `segments` from `source` (nil: unknown) into `target` (ISO 639-1), one output segment per input.
    func translate(_ segments: [NoteSegment], from source: String?, to target: String) async throws -> NoteTranslation
}
