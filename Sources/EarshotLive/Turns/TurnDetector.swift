public import EarshotSpeech

/// Server-side turn detection (the OpenAI Realtime API's `server_vad`): Silero VAD over the audio not yet committed
/// decides when speech starts and, after `silence_duration_ms` of silence, when it stops.
///
/// Fed the uncommitted buffer after each append, it answers what happened since the last look. Positions are sample
/// indexes into that buffer (16 kHz); the caller keeps the absolute time of its first sample.
public struct TurnDetector: Sendable {
    /// The `turn_detection` knobs.
    public struct Settings: Sendable, Hashable {
        /// Speech probability above which a frame is speech (0…1; OpenAI's default 0.5).
        public var threshold: Double = 0.5
        /// Audio kept before the detected start of speech (OpenAI's default 300 ms).
        public var prefixPaddingMs: Int = 300
        /// Silence that ends a turn (OpenAI's default 500 ms).
        public var silenceDurationMs: Int = 500

        public init() {}
    }

    /// What one look at the buffer found.
    public enum Change: Sendable, Hashable {
        /// Speech began at this sample.
        case started(at: Int)
        /// The turn that began at `start` ended at `end` (silence since then is at least `silenceDurationMs`).
        case stopped(start: Int, end: Int)
    }

    public var settings: Settings
    private let detector: VoiceActivityDetector
    /// Where the current turn began, while speech goes on.
    public private(set) var speechStart: Int?

    public init(detector: VoiceActivityDetector, settings: Settings = Settings()) {
        self.detector = detector
        self.settings = settings
    }

    /// Looks at `buffer` (everything not yet committed) and returns what changed.
    ///
    /// - Throws: ``SpeechError`` when the detector fails (non-finite samples).
    public mutating func update(_ buffer: [Float]) throws -> [Change] {
        var options = VoiceActivityOptions()
        options.threshold = Float(settings.threshold)
        options.minimumSpeech = .milliseconds(100)
        options.minimumSilence = .milliseconds(100)
        options.speechPadding = .zero
        let ranges = try detector.speechRanges(in: buffer, options: options)
        var changes: [Change] = []
        if speechStart == nil, let first = ranges.first {
            speechStart = first.lowerBound
            changes.append(.started(at: first.lowerBound))
        }
        if let start = speechStart {
            let end = ranges.last.map(\.upperBound) ?? start
            let silence = buffer.count - end
            if silence >= settings.silenceDurationMs * 16 {
                changes.append(.stopped(start: start, end: end))
                speechStart = nil
            }
        }
        return changes
    }

    /// Forgets the turn in progress (the buffer was committed or cleared).
    public mutating func reset() {
        speechStart = nil
    }
}
