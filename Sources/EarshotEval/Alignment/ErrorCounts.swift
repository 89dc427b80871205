/// Hits, substitutions, deletions and insertions of one alignment (or a sum of many), and the rates derived
/// from them.
///
/// Rates follow the usual definitions with N = H + S + D reference tokens:
/// - WER = (S + D + I) / N, accuracy = 1 − WER (negative when there are more errors than reference tokens);
/// - MER = (S + D + I) / (H + S + D + I).
///
/// Empty cases: with N = 0 the WER denominator is taken as 1, so an empty reference with an empty hypothesis
/// scores 0 and an empty reference with k hypothesis tokens scores k (k insertions), as jiwer does. Corpus
/// totals are formed by adding counts (``+(_:_:)``), never by averaging rates, so such utterances weigh in
/// by their insertions only.
public struct ErrorCounts: Sendable, Hashable, Codable {
    /// Reference tokens found unchanged in the hypothesis.
    public var hits: Int
    /// Reference tokens replaced by a different hypothesis token.
    public var substitutions: Int
    /// Reference tokens missing from the hypothesis.
    public var deletions: Int
    /// Hypothesis tokens with no reference counterpart.
    public var insertions: Int

    /// Creates counts.
    public init(hits: Int = 0, substitutions: Int = 0, deletions: Int = 0, insertions: Int = 0) {
        self.hits = hits
        self.substitutions = substitutions
        self.deletions = deletions
        self.insertions = insertions
    }

    /// All zeros.
    public static let zero = ErrorCounts()

    /// N: the number of reference tokens (H + S + D).
    public var referenceLength: Int { hits + substitutions + deletions }
    /// The number of hypothesis tokens (H + S + I).
    public var hypothesisLength: Int { hits + substitutions + insertions }
    /// S + D + I.
    public var errors: Int { substitutions + deletions + insertions }

    /// (S + D + I) / N, with N = 0 treated as 1 (see the type's documentation).
    public var errorRate: Double { Double(errors) / Double(max(referenceLength, 1)) }
    /// 1 − ``errorRate``.
    public var accuracy: Double { 1 - errorRate }
    /// Match error rate (S + D + I) / (H + S + D + I); 0 when both sides are empty.
    public var matchErrorRate: Double { Double(errors) / Double(max(hits + errors, 1)) }

    /// Adds counts field by field (corpus aggregation).
    public static func + (lhs: ErrorCounts, rhs: ErrorCounts) -> ErrorCounts {
        ErrorCounts(
            hits: lhs.hits + rhs.hits, substitutions: lhs.substitutions + rhs.substitutions,
            deletions: lhs.deletions + rhs.deletions, insertions: lhs.insertions + rhs.insertions)
    }

    /// Adds `rhs` into `lhs`.
    public static func += (lhs: inout ErrorCounts, rhs: ErrorCounts) { lhs = lhs + rhs }
}
