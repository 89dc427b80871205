/// The scores of one reference/hypothesis pair (one recording or one text file).
public struct DocumentResult: Sendable, Hashable, Codable {
    /// One position of the full-text word diff.
    public struct DiffToken: Sendable, Hashable, Codable {
        /// What happened here.
        public var operation: EditOperation
        /// The normalised reference token (nil for an insertion).
        public var reference: String?
        /// The normalised hypothesis token (nil for a deletion).
        public var hypothesis: String?
    }

    /// The document's name (file stem).
    public var name: String
    /// Full-text word counts: the authoritative numbers.
    public var words: ErrorCounts
    /// Character counts for CER (see ``EvaluationResult/characters``).
    public var characters: ErrorCounts
    /// The per-sentence comparison.
    public var sentences: [SentenceRow]
    /// The full-text alignment, token by token.
    public var diff: [DiffToken]
    /// The normalised reference, tokens joined by spaces.
    public var normalizedReference: String
    /// The normalised hypothesis, tokens joined by spaces.
    public var normalizedHypothesis: String
}
