public import Foundation

/// Everything an evaluation measured: corpus totals, per-document details, optional speaker scores.
///
/// Codable: ``jsonData()`` gives the machine-readable result, ``html()`` the report; both show the same numbers.
public struct EvaluationResult: Sendable, Hashable, Codable {
    /// Version of this JSON layout; bumped on incompatible changes.
    public var schemaVersion: Int = 1
    /// The report title.
    public var title: String
    /// The normalisation that produced the scored tokens.
    public var normalization: TextNormalizer.Configuration
    /// Word counts summed over documents (full-text alignment): the authoritative numbers.
    public var words: ErrorCounts
    /// Character counts summed over documents. Characters are those of the normalised tokens joined by single
    /// spaces, with no space between two CJK characters.
    public var characters: ErrorCounts
    /// WER = (S + D + I) / N over ``words``.
    public var wordErrorRate: Double
    /// 1 − WER.
    public var accuracy: Double
    /// CER over ``characters``.
    public var characterErrorRate: Double
    /// MER = (S + D + I) / (H + S + D + I) over ``words``.
    public var matchErrorRate: Double
    /// Per-document results, in input order.
    public var documents: [DocumentResult]
    /// What was tested.
    public var conditions: TestConditions
    /// Recognition time, when the caller measured it.
    public var timing: Timing?
    /// DER, when reference speaker turns and timed hypothesis speakers were given.
    public var diarization: DiarizationScore?
    /// cpWER, when the reference and the hypothesis carry speakers.
    public var permutationWER: PermutationScorer.Score?
    /// Streamed vs offline WER and latencies, when the files were replayed through the live path
    /// (`earshot eval --live`); nil otherwise.
    public var live: LiveFigures?

    /// Creates a result from totals; rates are derived from the counts.
    public init(
        title: String, normalization: TextNormalizer.Configuration, documents: [DocumentResult],
        conditions: TestConditions, timing: Timing?, diarization: DiarizationScore?,
        permutationWER: PermutationScorer.Score?
    ) {
        self.title = title
        self.normalization = normalization
        self.documents = documents
        self.words = documents.reduce(.zero) { $0 + $1.words }
        self.characters = documents.reduce(.zero) { $0 + $1.characters }
        self.wordErrorRate = words.errorRate
        self.accuracy = words.accuracy
        self.characterErrorRate = characters.errorRate
        self.matchErrorRate = words.matchErrorRate
        self.conditions = conditions
        self.timing = timing
        self.diarization = diarization
        self.permutationWER = permutationWER
    }

    /// The result as pretty-printed JSON with sorted keys.
    public func jsonData() throws(EvalError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(self)
        } catch {
            throw EvalError(.invalidArgument, "the result could not be encoded as JSON", underlying: error)
        }
    }

    /// The self-contained HTML report (see ``HTMLReport``).
    public func html() -> String { HTMLReport(result: self).render() }
}
