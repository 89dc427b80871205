import EarshotCore
public import EarshotSpeech

/// Server-side turn detection (the OpenAI Realtime API's `server_vad`): Silero VAD over the audio not yet committed
/// decides when speech starts and, after `silence_duration_ms` of silence, when it stops.
///
/// Fed the uncommitted buffer after each append, it answers what happened since the last look. Positions are sample
/// indexes into that buffer (16 kHz); the caller keeps the absolute time of its first sample.
///
/// With ``Splitting``, a long turn is also cut at a short pause inside it (``Change/paused(start:end:cut:)``), so a
/// speaker who talks for a minute with only brief pauses gets final text every few seconds rather than when they stop,
/// and each piece is decoded once rather than re-read as the turn grows.
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

    /// When a turn still going on is cut at a pause shorter than `silenceDurationMs` (Earshot's own; OpenAI's server
    /// VAD has none).
    public struct Splitting: Sendable, Hashable {
        /// A turn is cut once it has lasted this long…
        public var after: Duration = .seconds(6)
        /// …at a pause at least this long, where speech has resumed…
        public var pause: Duration = .milliseconds(200)
        /// …that begins at least this far into the turn (no tiny pieces). The longest such pause wins.
        public var shortest: Duration = .seconds(2)

        public init() {}
    }

    /// What one look at the buffer found.
    public enum Change: Sendable, Hashable {
        /// Speech began at this sample.
        case started(at: Int)
        /// The turn that began at `start` ended at `end` (silence since then is at least `silenceDurationMs`).
        case stopped(start: Int, end: Int)
        /// The long turn that began at `start` paused after `end`; the caller commits it up to `cut` (the middle of
        /// the pause), drops those samples (``droppedFirst(_:)``), and the turn goes on as a new one from the speech
        /// after the pause.
        case paused(start: Int, end: Int, cut: Int)
    }

    public var settings: Settings
    /// nil: a turn is whole until its speaker stops.
    public var splitting: Splitting?
    private let stream: VoiceActivityStream
    /// Speech probabilities of the stream's frames from `framesStart` on. Positions here are absolute (samples since
    /// the stream's first); the changes are told relative to the buffer.
    private var probabilities: [Float] = []
    private var framesStart = 0
    /// The first sample the stream has not been fed.
    private var fed = 0
    /// Where the caller's buffer begins.
    private var origin = 0
    /// Where the current turn began, while speech goes on.
    private var turnStart: Int?
    /// Where the current turn's speech last ended (absolute), and how far the stream has been heard.
    private var quietFrom: Int?
    private var heardUpTo = 0

    /// A detector over `stream`, which it resets (a new detector starts over).
    public init(stream: VoiceActivityStream, settings: Settings = Settings(), splitting: Splitting? = nil) {
        stream.reset()
        self.stream = stream
        self.settings = settings
        self.splitting = splitting
    }

    /// Where the current turn began in the buffer, while speech goes on.
    public var speechStart: Int? { turnStart.map { $0 - origin } }

    /// While a turn goes on but has gone quiet: where its speech ended (a buffer position) and how many samples of
    /// silence have followed it (the turn stops when that reaches `silenceDurationMs`); nil while speech goes on and
    /// between turns.
    public var quiet: (end: Int, length: Int)? {
        guard turnStart != nil, let quietFrom, heardUpTo > quietFrom else { return nil }
        return (quietFrom - origin, heardUpTo - quietFrom)
    }

    /// Looks at `buffer` (everything not yet committed; its first sample is the stream's sample `start`) and returns
    /// what changed. Only the samples not seen before are run through the detector.
    ///
    /// - Throws: ``SpeechError`` when the detector fails (non-finite samples).
    public mutating func update(_ buffer: [Float], start: Int) throws -> [Change] {
        origin = start
        if fed < start || fed > start + buffer.count {
            // Audio the detector never saw was dropped: what comes now does not continue what it heard.
            stream.reset()
            (probabilities, framesStart, fed) = ([], start, start)
        }
        if fed < start + buffer.count {
            probabilities += try stream.append(buffer[(fed - start)...])
            fed = start + buffer.count
        }
        let stale = max(0, (start - framesStart) / VoiceActivityStream.frameLength)
        probabilities.removeFirst(stale)
        framesStart += stale * VoiceActivityStream.frameLength
        let heard = framesStart + probabilities.count * VoiceActivityStream.frameLength - start
        let ranges = Self.speech(in: probabilities, threshold: Float(settings.threshold)).compactMap { frames in
            let lower = max(start, framesStart + frames.lowerBound * VoiceActivityStream.frameLength) - start
            let upper = framesStart + frames.upperBound * VoiceActivityStream.frameLength - start
            return lower < upper ? lower..<upper : nil
        }

        var changes: [Change] = []
        if turnStart == nil, let first = ranges.first {
            turnStart = start + first.lowerBound
            changes.append(.started(at: first.lowerBound))
        }
        if let begun = speechStart {
            let end = ranges.last.map(\.upperBound) ?? begun
            if heard - end >= settings.silenceDurationMs * 16 {
                changes.append(.stopped(start: begun, end: end))
                turnStart = nil
            } else if let splitting, let pause = Self.pause(in: ranges, turnStart: begun, count: heard, splitting) {
                changes.append(
                    .paused(start: begun, end: pause.lowerBound, cut: (pause.lowerBound + pause.upperBound) / 2))
                turnStart = start + pause.upperBound
            }
        }
        heardUpTo = start + heard
        if let begun = turnStart, let last = ranges.last, start + last.upperBound > begun {
            quietFrom = start + last.upperBound
        } else {
            quietFrom = nil
        }
        return changes
    }

    /// Speech as frame ranges: from a frame at or above `threshold` until `threshold − 0.15` or less has lasted
    /// 100 ms (the silence is not part of it); pieces under 100 ms are dropped, and speech still going on at the end
    /// runs to the last frame. (Silero's own rule, as whisper.cpp applies it.)
    static func speech(in probabilities: [Float], threshold: Float) -> [Range<Int>] {
        let frame = VoiceActivityStream.frameLength
        let shortest = (1_600 + frame - 1) / frame
        let low = max(0.01, threshold - 0.15)
        var ranges: [Range<Int>] = []
        var begun: Int?
        var quietSince: Int?
        for (index, probability) in probabilities.enumerated() {
            guard let start = begun else {
                if probability >= threshold { (begun, quietSince) = (index, nil) }
                continue
            }
            if probability >= threshold {
                quietSince = nil
            } else if probability < low {
                let quiet = quietSince ?? index
                quietSince = quiet
                if index + 1 - quiet >= shortest {
                    if quiet - start >= shortest { ranges.append(start..<quiet) }
                    (begun, quietSince) = (nil, nil)
                }
            }
        }
        if let start = begun, probabilities.count - start >= shortest { ranges.append(start..<probabilities.count) }
        return ranges
    }

    /// The pause to cut a turn at: the longest gap between speech ranges of the turn that is at least
    /// `splitting.pause` long and begins at least `splitting.shortest` into it, once the turn is `splitting.after`
    /// long; nil when the turn is shorter or has no such pause.
    static func pause(in ranges: [Range<Int>], turnStart: Int, count: Int, _ splitting: Splitting) -> Range<Int>? {
        guard count - turnStart >= splitting.after.samples(atRate: 16_000) else { return nil }
        var best: Range<Int>?
        for (before, after) in zip(ranges, ranges.dropFirst()) where before.upperBound > turnStart {
            let gap = before.upperBound..<after.lowerBound
            guard gap.count >= splitting.pause.samples(atRate: 16_000),
                gap.lowerBound - turnStart >= splitting.shortest.samples(atRate: 16_000)
            else { continue }
            if gap.count >= best?.count ?? 0 { best = gap }
        }
        return best
    }

    /// The caller removed the first `count` samples of the buffer (committed up to a ``Change/paused(start:end:cut:)``
    /// cut): the turn in progress moves with them.
    public mutating func droppedFirst(_ count: Int) {
        origin += count
    }

    /// Forgets the turn in progress (the buffer was committed or cleared); the audio goes on.
    public mutating func reset() {
        turnStart = nil
        quietFrom = nil
    }

    /// Forgets the turn and everything heard: the next audio does not continue this (a dialogue's other side).
    public mutating func restart() {
        turnStart = nil
        quietFrom = nil
        stream.reset()
        (probabilities, framesStart) = ([], fed)
    }
}
