/// Concatenated minimum-permutation word error rate (cpWER).
///
/// Each speaker's utterances are concatenated in order, on both sides. Every reference speaker is paired with
/// at most one hypothesis speaker so that the summed word errors are minimal (Hungarian method; an unpaired
/// reference speaker counts all its words as deletions, an unpaired hypothesis speaker all its words as
/// insertions). cpWER = total errors / reference words. It equals the plain WER when both sides have one
/// speaker, and grows when words are attributed to the wrong speaker.
public enum PermutationScorer {
    /// The result of ``score(reference:hypothesis:normalizer:)``.
    public struct Score: Sendable, Hashable, Codable {
        /// Summed counts over the chosen speaker pairs.
        public var counts: ErrorCounts
        /// Reference speaker → hypothesis speaker (absent when a reference speaker stays unpaired).
        public var mapping: [String: String]
        /// cpWER = counts.errors / reference words.
        public var errorRate: Double { counts.errorRate }
    }

    /// Scores speaker-attributed text. Normalisation is applied to every utterance.
    public static func score(
        reference: [SpeakerUtterance], hypothesis: [SpeakerUtterance], normalizer: TextNormalizer
    ) -> Score {
        var interner = TokenInterner()
        let references = concatenate(reference, normalizer: normalizer, interner: &interner)
        let hypotheses = concatenate(hypothesis, normalizer: normalizer, interner: &interner)
        let size = max(references.count, hypotheses.count)
        guard size > 0 else { return Score(counts: .zero, mapping: [:]) }
        var counts = Array(repeating: [ErrorCounts](repeating: .zero, count: size), count: size)
        for i in 0..<size {
            for j in 0..<size {
                let r = i < references.count ? references[i].1 : []
                let h = j < hypotheses.count ? hypotheses[j].1 : []
                counts[i][j] = EditDistance.counts(reference: r, hypothesis: h)
            }
        }
        let assignment = Assignment.minimumCost(counts.map { $0.map { Double($0.errors) } })
        var total = ErrorCounts.zero
        var mapping: [String: String] = [:]
        for (i, j) in assignment.enumerated() {
            guard let j else { continue }
            total += counts[i][j]
            if i < references.count && j < hypotheses.count { mapping[references[i].0] = hypotheses[j].0 }
        }
        return Score(counts: total, mapping: mapping)
    }

    private static func concatenate(
        _ utterances: [SpeakerUtterance], normalizer: TextNormalizer, interner: inout TokenInterner
    ) -> [(String, [Int32])] {
        var order: [String] = []
        var tokens: [String: [Int32]] = [:]
        for utterance in utterances {
            if tokens[utterance.speaker] == nil { order.append(utterance.speaker) }
            tokens[utterance.speaker, default: []] += interner.ids(normalizer.tokens(utterance.text))
        }
        return order.map { ($0, tokens[$0]!) }
    }
}
