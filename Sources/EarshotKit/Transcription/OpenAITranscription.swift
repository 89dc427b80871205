/// The answer of the OpenAI-compatible `POST /v1/audio/transcriptions` with `response_format=verbose_json`.
///
/// This shape is OpenAI's, not the platform's task contract, so it lives in the SDK rather than in `EarshotAPI`.
public struct OpenAITranscription: Codable, Sendable, Hashable {
    /// One segment (times in seconds, as OpenAI's API has them).
    public struct Segment: Codable, Sendable, Hashable {
        public var id: Int
        public var start: Double
        public var end: Double
        public var text: String
    }

    public var text: String
    public var language: String?
    /// Seconds of audio.
    public var duration: Double?
    public var segments: [Segment]?
}
