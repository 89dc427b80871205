import Foundation

/// Who spoke when: energy VAD → fixed-length sub-segments → speaker embeddings → agglomerative clustering →
/// turns → ASR segments split at the word where the speaker changes.
///
/// Input is 16 kHz mono `Float` samples and, optionally, word-timed ASR segments (`TimedSegment`); output is speaker
/// turns and relabelled segments with labels `Speaker 1…N` in order of first appearance (template configurable).
/// Overlapping speech is attributed to one speaker only (the one whose sub-segment covers it; in practice the
/// dominant, louder voice) — a documented limitation.
///
/// Thread-safety: immutable; `diarize` may run concurrently. It is blocking CPU work (with `ResemblyzerEmbedder` on
/// one OpenBLAS thread 0.6–1 s per audio minute, up to ~2 s with boundary refinement where speakers alternate without
/// pauses; clustering is O(n³) in sub-segments, 0.35 s for 1,000): call it off the cooperative pool.
public struct Diarizer: Sendable {
    /// Pipeline options; the defaults are calibrated on the pyannote sample and espeak-ng dialogues
    /// (docs/diarization.md).
    public struct Configuration: Sendable, Hashable, Codable {
        /// Exact number of speakers, when the caller knows it (overrides the threshold and min/max).
        public var speakerCount: Int?
        /// Fewest speakers to return when counting by threshold.
        public var minSpeakers: Int
        /// Most speakers to return when counting by threshold.
        public var maxSpeakers: Int
        /// Cosine similarity (average linkage) above which two clusters are the same speaker.
        public var threshold: Float
        /// Target sub-segment length in seconds; speech regions are cut into equal pieces close to it.
        public var subsegmentDuration: Double
        /// Sub-segments shorter than this (seconds) do not vote in clustering; they join the nearest speaker.
        public var minClusteringDuration: Double
        /// Same-speaker turns separated by at most this much silence (seconds) are joined.
        public var joinGap: Double
        /// Label template; `{n}` is replaced by the 1-based speaker number (`"发言人 {n}"`).
        public var labelTemplate: String
        /// Moves the boundary between two touching sub-segments of different speakers (a change without a pause)
        /// to where 1.6 s sliding windows switch from one speaker's centroid to the other's.
        public var refineBoundaries: Bool

        /// Creates a configuration; see each property for its meaning.
        public init(
            speakerCount: Int? = nil, minSpeakers: Int = 1, maxSpeakers: Int = 10, threshold: Float = 0.76,
            subsegmentDuration: Double = 2.5, minClusteringDuration: Double = 1.0, joinGap: Double = 1.0,
            labelTemplate: String = "Speaker {n}", refineBoundaries: Bool = true
        ) {
            self.speakerCount = speakerCount
            self.minSpeakers = minSpeakers
            self.maxSpeakers = maxSpeakers
            self.threshold = threshold
            self.subsegmentDuration = subsegmentDuration
            self.minClusteringDuration = minClusteringDuration
            self.joinGap = joinGap
            self.labelTemplate = labelTemplate
            self.refineBoundaries = refineBoundaries
        }

        /// The label of speaker `n` (1-based).
        public func label(_ n: Int) -> String { labelTemplate.replacingOccurrences(of: "{n}", with: String(n)) }
    }

    /// A speech sub-segment with its embedding (exposed for benchmarks and tuning).
    public struct Subsegment: Sendable, Hashable {
        /// Sample range in the input.
        public var range: Range<Int>
        /// Start, seconds.
        public var start: Double { Double(range.lowerBound) / 16_000 }
        /// End, seconds.
        public var end: Double { Double(range.upperBound) / 16_000 }
    }

    public let configuration: Configuration
    private let embedder: any SpeakerEmbedder
    private let vad = EnergyVAD()

    /// Creates a diarizer. Throws `.invalidConfiguration` for impossible counts or durations.
    public init(embedder: any SpeakerEmbedder, configuration: Configuration = Configuration()) throws(DiarizationError)
    {
        if let count = configuration.speakerCount, count < 1 {
            throw DiarizationError(.invalidConfiguration, "speakerCount must be ≥ 1 (got \(count))")
        }
        guard configuration.minSpeakers >= 1, configuration.minSpeakers <= configuration.maxSpeakers else {
            throw DiarizationError(
                .invalidConfiguration,
                "need 1 ≤ minSpeakers ≤ maxSpeakers (got \(configuration.minSpeakers)…\(configuration.maxSpeakers))")
        }
        guard configuration.subsegmentDuration >= 0.5 else {
            throw DiarizationError(.invalidConfiguration, "subsegmentDuration must be ≥ 0.5 s")
        }
        self.embedder = embedder
        self.configuration = configuration
    }

    /// Diarizes `samples` (16 kHz mono) and relabels `segments` (may be empty).
    ///
    /// `speech` gives the speech regions (sample ranges, e.g. from the speech engine's Silero detector); nil finds
    /// them with the built-in energy detector. Regions closer than 0.3 s are joined before cutting sub-segments.
    public func diarize(
        samples: [Float], segments: [TimedSegment] = [], speech: [Range<Int>]? = nil
    ) throws(DiarizationError) -> DiarizationResult {
        let parts = subsegments(of: samples, speech: speech)
        guard !parts.isEmpty else {
            return DiarizationResult(turns: [], segments: [], labels: [])
        }
        let embeddings = try embedder.embed(parts.map { samples[$0.range] })
        var (refined, cluster, centroids) = clusters(subsegments: parts, embeddings: embeddings)
        if configuration.refineBoundaries {
            try refineBoundaries(&refined, cluster: cluster, centroids: centroids, samples: samples)
        }
        return result(subsegments: refined, cluster: cluster, centroids: centroids, segments: segments)
    }

    /// Step 1–2: speech regions cut into sub-segments of about `subsegmentDuration`.
    ///
    /// `speech` as in ``diarize(samples:segments:speech:)``; nil uses the energy detector.
    public func subsegments(of samples: [Float], speech: [Range<Int>]? = nil) -> [Subsegment] {
        let target = configuration.subsegmentDuration * 16_000
        var parts: [Subsegment] = []
        let regions = speech.map { Self.bridged($0, gap: Int(vad.minGap * 16_000), count: samples.count) }
        for region in regions ?? vad.speechRegions(samples) {
            let pieces = max(1, Int((Double(region.count) / target).rounded()))
            for p in 0..<pieces {
                let lo = region.lowerBound + region.count * p / pieces
                let hi = region.lowerBound + region.count * (p + 1) / pieces
                parts.append(Subsegment(range: lo..<hi))
            }
        }
        return parts
    }

    /// Steps 3–5 from precomputed embeddings (one per sub-segment): clustering, turns, word-level relabelling.
    ///
    /// Boundary refinement needs the audio and is not applied here (`diarize` applies it when configured).
    public func assemble(subsegments parts: [Subsegment], embeddings: [[Float]], segments: [TimedSegment])
        -> DiarizationResult
    {
        let (parts, cluster, centroids) = clusters(subsegments: parts, embeddings: embeddings)
        return result(subsegments: parts, cluster: cluster, centroids: centroids, segments: segments)
    }

    /// `regions` clamped to `0..<count`, sorted, with neighbours closer than `gap` samples joined.
    static func bridged(_ regions: [Range<Int>], gap: Int, count: Int) -> [Range<Int>] {
        var joined: [Range<Int>] = []
        for region in regions.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            let clamped = max(0, region.lowerBound)..<min(count, max(region.upperBound, max(0, region.lowerBound)))
            guard !clamped.isEmpty else { continue }
            if let last = joined.last, clamped.lowerBound - last.upperBound < gap {
                joined[joined.count - 1] = last.lowerBound..<max(last.upperBound, clamped.upperBound)
            } else {
                joined.append(clamped)
            }
        }
        return joined
    }

    /// Clustering: a cluster index per sub-segment and the L2-normalised cluster centroids.
    private func clusters(subsegments parts: [Subsegment], embeddings: [[Float]]) -> (
        [Subsegment], [Int], [[Float]]
    ) {
        let durations = parts.map { Float($0.end - $0.start) }
        var voters = parts.indices.filter { Double(durations[$0]) >= configuration.minClusteringDuration }
        if voters.isEmpty { voters = Array(parts.indices) }
        let voterLabels = AgglomerativeClustering.cluster(
            voters.map { embeddings[$0] }, weights: voters.map { durations[$0] }, threshold: configuration.threshold,
            count: configuration.speakerCount.map { min($0, voters.count) }, minCount: configuration.minSpeakers,
            maxCount: configuration.maxSpeakers)
        let k = (voterLabels.max() ?? 0) + 1
        // Centroids (duration-weighted), then every sub-segment joins its nearest centroid.
        var centroids = [[Float]](repeating: [Float](repeating: 0, count: embedder.dimension), count: k)
        for (v, label) in zip(voters, voterLabels) {
            for d in 0..<embedder.dimension { centroids[label][d] += durations[v] * embeddings[v][d] }
        }
        var cluster = [Int](repeating: 0, count: parts.count)
        for (v, label) in zip(voters, voterLabels) { cluster[v] = label }
        let voterSet = Set(voters)
        for i in parts.indices where !voterSet.contains(i) {
            cluster[i] = (0..<k).max { dot(centroids[$0], embeddings[i]) < dot(centroids[$1], embeddings[i]) } ?? 0
        }
        let normalized = centroids.map { c in
            let norm = dot(c, c).squareRoot()
            return norm > 0 ? c.map { $0 / norm } : c
        }
        return (parts, cluster, normalized)
    }

    /// Turns (speakers numbered by first appearance) and relabelled segments.
    private func result(
        subsegments parts: [Subsegment], cluster: [Int], centroids: [[Float]], segments: [TimedSegment]
    ) -> DiarizationResult {
        // Speakers numbered by first appearance.
        let order = parts.indices.sorted { parts[$0].range.lowerBound < parts[$1].range.lowerBound }
        var number: [Int: Int] = [:]
        for i in order where number[cluster[i]] == nil { number[cluster[i]] = number.count + 1 }
        var turns: [DiarizedTurn] = []
        for i in order {
            let speaker = number[cluster[i]]!
            let (start, end) = (parts[i].start, parts[i].end)
            if let last = turns.last, last.speaker == speaker, start - last.end <= configuration.joinGap {
                turns[turns.count - 1].end = max(last.end, end)
            } else {
                turns.append(
                    DiarizedTurn(start: start, end: end, speaker: speaker, label: configuration.label(speaker)))
            }
        }
        let labels = (1...max(1, number.count)).map(configuration.label)
        var speakerCentroids = [[Float]](repeating: [], count: number.count)
        for (index, speaker) in number where index < centroids.count {
            speakerCentroids[speaker - 1] = centroids[index]
        }
        return DiarizationResult(
            turns: turns, segments: WordResegmenter(turns: turns).relabel(segments),
            labels: number.isEmpty ? [] : labels, centroids: speakerCentroids)
    }

    private func dot(_ a: [Float], _ b: [Float]) -> Float {
        var s: Float = 0
        for d in 0..<min(a.count, b.count) { s += a[d] * b[d] }
        return s
    }
}

extension Diarizer {
    /// Similarities of the successive average-linkage merges of `vectors` (for calibration tools).
    public static func mergeSimilarities(_ vectors: [[Float]], weights: [Float]) -> [Float] {
        AgglomerativeClustering.dendrogram(vectors, weights: weights).map(\.similarity)
    }
}

extension Diarizer {
    static let refineWindow = 25_600  // 1.6 s: one Resemblyzer partial
    static let refineHop = 6_400  // 0.4 s

    /// For each pair of touching sub-segments with different speakers A | B, embeds 1.6 s windows every 0.2 s over
    /// both and moves their shared boundary to the split that maximises Σ_left (cos A − cos B) − Σ_right (cos A − cos B)
    /// over window centres. Costs about (span − 1.6 s) / 0.2 s window embeddings per such boundary.
    func refineBoundaries(
        _ parts: inout [Subsegment], cluster: [Int], centroids: [[Float]], samples: [Float]
    ) throws(DiarizationError) {
        let order = parts.indices.sorted { parts[$0].range.lowerBound < parts[$1].range.lowerBound }
        for (i, j) in zip(order, order.dropFirst()) {
            guard cluster[i] != cluster[j], parts[i].range.upperBound == parts[j].range.lowerBound else { continue }
            let lo = parts[i].range.lowerBound, hi = parts[j].range.upperBound
            guard hi - lo >= Self.refineWindow + 2 * Self.refineHop else { continue }
            let starts = Array(stride(from: lo, through: hi - Self.refineWindow, by: Self.refineHop))
            let windows = try embedder.embed(starts.map { samples[$0..<($0 + Self.refineWindow)] })
            let a = centroids[cluster[i]], b = centroids[cluster[j]]
            let margin = windows.map { dot($0, a) - dot($0, b) }
            // Best split index s: windows [0, s) are A, [s, n) are B.
            let total = margin.reduce(0, +)
            var bestScore = -Float.infinity, bestSplit = 1, prefix: Float = 0
            for s in 1..<margin.count {
                prefix += margin[s - 1]
                let score = prefix - (total - prefix)
                if score > bestScore {
                    bestScore = score
                    bestSplit = s
                }
            }
            // Boundary halfway between the centres of the last A window and the first B window.
            let boundary = starts[bestSplit - 1] + Self.refineHop / 2 + Self.refineWindow / 2
            let clamped = min(max(boundary, lo + 8_000), hi - 8_000)  // both keep ≥ 0.5 s
            parts[i].range = parts[i].range.lowerBound..<clamped
            parts[j].range = clamped..<parts[j].range.upperBound
        }
    }
}
