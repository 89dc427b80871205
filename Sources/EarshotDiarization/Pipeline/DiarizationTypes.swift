/// A word with its time span, as an ASR engine reports it. Times in seconds from the start of the audio.
public struct TimedWord: Sendable, Hashable, Codable {
    /// Start, seconds.
    public var start: Double
    /// End, seconds.
    public var end: Double
    /// The word as the engine spelled it, including any leading space (Whisper style); words are re-joined by
    /// plain concatenation, so languages without spaces (Chinese) round-trip unchanged.
    public var text: String

    /// Creates a word.
    public init(start: Double, end: Double, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }
}

/// An ASR segment to relabel: its span, text and (optionally) word timestamps. Seconds from the start of the audio.
public struct TimedSegment: Sendable, Hashable, Codable {
    /// Start, seconds.
    public var start: Double
    /// End, seconds.
    public var end: Double
    /// Full text of the segment.
    public var text: String
    /// Word timestamps; empty when the engine gave none (then the whole segment gets one speaker).
    public var words: [TimedWord]

    /// Creates a segment.
    public init(start: Double, end: Double, text: String, words: [TimedWord] = []) {
        self.start = start
        self.end = end
        self.text = text
        self.words = words
    }
}

/// A stretch of audio attributed to one speaker. Seconds from the start of the audio.
public struct DiarizedTurn: Sendable, Hashable, Codable {
    /// Start, seconds.
    public var start: Double
    /// End, seconds.
    public var end: Double
    /// Speaker number, 1-based, in order of first appearance.
    public var speaker: Int
    /// Display label (`Speaker 1`, or the configured template, e.g. `发言人 1`).
    public var label: String

    /// Creates a turn.
    public init(start: Double, end: Double, speaker: Int, label: String) {
        self.start = start
        self.end = end
        self.speaker = speaker
        self.label = label
    }
}

/// An ASR segment (or the part of one) spoken by a single speaker.
public struct DiarizedSegment: Sendable, Hashable, Codable {
    /// Start, seconds (first word's start when split at a word).
    public var start: Double
    /// End, seconds.
    public var end: Double
    /// Text of this part (the words concatenated, or the original text when the segment was not split).
    public var text: String
    /// Words of this part.
    public var words: [TimedWord]
    /// Speaker number, 1-based.
    public var speaker: Int
    /// Display label.
    public var label: String
    /// Index of the input segment this part came from.
    public var sourceIndex: Int

    /// Creates a segment.
    public init(
        start: Double, end: Double, text: String, words: [TimedWord], speaker: Int, label: String, sourceIndex: Int
    ) {
        self.start = start
        self.end = end
        self.text = text
        self.words = words
        self.speaker = speaker
        self.label = label
        self.sourceIndex = sourceIndex
    }
}

/// What `Diarizer.diarize` returns.
public struct DiarizationResult: Sendable, Hashable, Codable {
    /// Speaker turns in time order, non-overlapping (overlapped speech goes to the dominant speaker).
    public var turns: [DiarizedTurn]
    /// The input segments relabelled, split where the speaker changes between words.
    public var segments: [DiarizedSegment]
    /// Labels of speakers 1…N.
    public var labels: [String]
    /// Each speaker's voice: the duration-weighted mean of its sub-segment embeddings, L2-normalised, for speakers
    /// 1…N (index 0 is speaker 1). Compared with enrolled ``Voiceprint``s to name speakers.
    public var centroids: [[Float]]
    /// Number of speakers found.
    public var speakerCount: Int { labels.count }

    /// Creates a result.
    public init(turns: [DiarizedTurn], segments: [DiarizedSegment], labels: [String], centroids: [[Float]] = []) {
        self.turns = turns
        self.segments = segments
        self.labels = labels
        self.centroids = centroids
    }
}
