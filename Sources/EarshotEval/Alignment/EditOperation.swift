/// One step of an alignment between a reference and a hypothesis.
public enum EditOperation: String, Sendable, Hashable, Codable, CaseIterable {
    /// The reference token and the hypothesis token are equal.
    case match
    /// The reference token was recognised as a different token.
    case substitution
    /// The reference token is missing from the hypothesis.
    case deletion
    /// The hypothesis token has no counterpart in the reference.
    case insertion
}

/// One aligned position: an operation and the token indices it involves.
///
/// `referenceIndex` is nil for an insertion and `hypothesisIndex` is nil for a deletion.
public struct AlignedPair: Sendable, Hashable, Codable {
    /// What happened at this position.
    public var operation: EditOperation
    /// Index into the reference tokens, nil for an insertion.
    public var referenceIndex: Int?
    /// Index into the hypothesis tokens, nil for a deletion.
    public var hypothesisIndex: Int?

    /// Creates an aligned pair.
    public init(operation: EditOperation, referenceIndex: Int?, hypothesisIndex: Int?) {
        self.operation = operation
        self.referenceIndex = referenceIndex
        self.hypothesisIndex = hypothesisIndex
    }
}
