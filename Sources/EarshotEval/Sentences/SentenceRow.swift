/// One row of the per-sentence comparison: one reference line (or several merged ones) and the whole
/// recognised segments assigned to it.
public struct SentenceRow: Sendable, Hashable, Codable {
    /// How the row came about.
    public enum Status: String, Sendable, Hashable, Codable {
        /// One reference line with the segments whose words mostly fall on it.
        case aligned
        /// Several reference lines that the recogniser returned inside one segment; scored together.
        case merged
        /// A reference line that no segment covers (all its words are deletions).
        case missed
        /// Segments that match no reference line at all (only possible with an empty reference).
        case extra
    }

    /// How the row came about.
    public var status: Status
    /// Zero-based indices of the reference lines in this row, ascending.
    public var referenceLines: [Int]
    /// Zero-based indices of the hypothesis segments in this row, ascending.
    public var segments: [Int]
    /// The reference lines as written, in order.
    public var referenceText: [String]
    /// The segments as recognised, in order.
    public var hypothesisText: [String]
    /// The normalised tokens of the reference lines, joined by spaces.
    public var normalizedReference: String
    /// The normalised tokens of the segments, joined by spaces.
    public var normalizedHypothesis: String
    /// Word counts of this row alone (informative; the full-text counts are authoritative).
    public var counts: ErrorCounts
}
