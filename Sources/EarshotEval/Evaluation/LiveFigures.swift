/// What a live replay measured (`earshot eval --live`): the streamed WER next to the offline WER of the same files,
/// and per-utterance latencies.
///
/// An utterance is one committed item of the live session (a turn the server's VAD cut). Its latencies are wall
/// seconds: from the moment the audio of its speech start was sent to its first partial text, and from the moment
/// the audio of its speech end was sent to its final text. At `speed` 1 (real-time pace) they are what a user waits;
/// faster replays shorten the audio between decodes, so their latencies only show that the path keeps up.
public struct LiveFigures: Sendable, Hashable, Codable {
    /// One utterance of a replayed file.
    public struct Utterance: Sendable, Hashable, Codable {
        /// The file (document name) it belongs to.
        public var document: String
        /// Seconds from its speech start to its first partial text; nil when its first text was the final one.
        public var firstPartialSeconds: Double?
        /// Seconds from its speech end to its final text.
        public var finalSeconds: Double

        public init(document: String, firstPartialSeconds: Double?, finalSeconds: Double) {
            self.document = document
            self.firstPartialSeconds = firstPartialSeconds
            self.finalSeconds = finalSeconds
        }
    }

    /// One file's streamed and offline WER.
    public struct Document: Sendable, Hashable, Codable {
        public var name: String
        public var streamedWordErrorRate: Double
        public var offlineWordErrorRate: Double

        public init(name: String, streamedWordErrorRate: Double, offlineWordErrorRate: Double) {
            self.name = name
            self.streamedWordErrorRate = streamedWordErrorRate
            self.offlineWordErrorRate = offlineWordErrorRate
        }
    }

    /// Median and 95th percentile (nearest rank) of a list of seconds.
    public struct Summary: Sendable, Hashable, Codable {
        public var count: Int
        public var p50: Double
        public var p95: Double

        /// nil for an empty list.
        public init?(_ values: [Double]) {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            func rank(_ q: Double) -> Double { sorted[max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1)] }
            count = sorted.count
            p50 = rank(0.5)
            p95 = rank(0.95)
        }
    }

    /// Replay pace: 1 is real time, N is N times faster.
    public var speed: Double
    /// Corpus WER of the streamed finals (the result's own ``EvaluationResult/wordErrorRate``).
    public var streamedWordErrorRate: Double
    /// Corpus WER of the offline pipeline on the same files.
    public var offlineWordErrorRate: Double
    /// Per-file WERs, in input order (files scored both ways).
    public var documents: [Document]
    /// Every utterance, in file order.
    public var utterances: [Utterance]
    /// Speech start → first partial over ``utterances`` that had one.
    public var firstPartial: Summary?
    /// Speech end → final over all ``utterances``.
    public var final: Summary?

    /// Figures from the streamed and the offline results of the same files (documents paired by name) and the
    /// replay's utterances.
    public init(streamed: EvaluationResult, offline: EvaluationResult, utterances: [Utterance], speed: Double) {
        self.speed = speed
        streamedWordErrorRate = streamed.wordErrorRate
        offlineWordErrorRate = offline.wordErrorRate
        let offlineByName = Dictionary(offline.documents.map { ($0.name, $0.words.errorRate) }) { first, _ in first }
        documents = streamed.documents.compactMap { document in
            offlineByName[document.name].map {
                Document(name: document.name, streamedWordErrorRate: document.words.errorRate, offlineWordErrorRate: $0)
            }
        }
        self.utterances = utterances
        firstPartial = Summary(utterances.compactMap(\.firstPartialSeconds))
        final = Summary(utterances.map(\.finalSeconds))
    }

    /// Streamed minus offline WER (the goal is at most 0.02).
    public var werDifference: Double { streamedWordErrorRate - offlineWordErrorRate }
}
