/// The text-only entry point: reference text(s) and recognised segments in, ``EvaluationResult`` out.
///
/// ```swift
/// let evaluation = TextEvaluation(configuration: .init(language: .english))
/// let result = evaluation.evaluate([try .init(name: "memo", referenceFile: ref, hypothesisFile: hyp)])
/// try result.html().write(to: reportURL, atomically: true, encoding: .utf8)
/// ```
///
/// Each document is normalised line by line and segment by segment, then aligned as one full text (the
/// authoritative WER); the per-sentence table is derived from that alignment (see ``SentenceRow``). A value
/// type without shared state: evaluate on any task or thread.
public struct TextEvaluation: Sendable {
    /// Evaluation options.
    public struct Configuration: Sendable, Hashable, Codable {
        /// The normalisation applied to both sides.
        public var normalization: TextNormalizer.Configuration
        /// DER options.
        public var diarization: DiarizationScorer.Configuration

        /// Options with `normalization` and the default DER collar.
        public init(
            normalization: TextNormalizer.Configuration,
            diarization: DiarizationScorer.Configuration = DiarizationScorer.Configuration()
        ) {
            self.normalization = normalization
            self.diarization = diarization
        }

        /// The default normalisation for `language` and the default DER collar.
        public init(language: TextNormalizer.Language) {
            self.init(normalization: .defaults(for: language))
        }
    }

    /// One reference/hypothesis pair.
    public struct Document: Sendable, Hashable {
        /// A name for the report (usually the file stem).
        public var name: String
        /// The reference, one sentence per line; blank lines are ignored.
        public var referenceLines: [String]
        /// The recognised segments, in order.
        public var hypothesis: [HypothesisSegment]
        /// Speaker-attributed reference text; enables cpWER when the segments carry speakers.
        public var referenceSpeakers: [SpeakerUtterance]?
        /// Reference speaker turns (RTTM); enables DER when the segments carry speakers and times.
        public var referenceTurns: [SpeakerTurn]?

        /// Creates a document.
        public init(
            name: String, referenceLines: [String], hypothesis: [HypothesisSegment],
            referenceSpeakers: [SpeakerUtterance]? = nil, referenceTurns: [SpeakerTurn]? = nil
        ) {
            self.name = name
            self.referenceLines = referenceLines.filter { !$0.allSatisfy(\.isWhitespace) }
            self.hypothesis = hypothesis
            self.referenceSpeakers = referenceSpeakers
            self.referenceTurns = referenceTurns
        }

        /// A document from two texts: the reference's lines are its sentences, the hypothesis's lines its
        /// segments.
        public init(name: String, reference: String, hypothesis: String) {
            self.init(
                name: name, referenceLines: ReferenceFiles.lines(of: reference),
                hypothesis: ReferenceFiles.lines(of: hypothesis).map { HypothesisSegment(text: $0) })
        }
    }

    /// The options in use.
    public let configuration: Configuration
    private let normalizer: TextNormalizer

    /// Creates an evaluation.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.normalizer = TextNormalizer(configuration: configuration.normalization)
    }

    /// Scores every document and sums the totals.
    ///
    /// - Parameters:
    ///   - conditions: what was tested, copied into the report.
    ///   - timing: recognition time for the elapsed-time and real-time-factor figures.
    ///   - title: the report's title.
    public func evaluate(
        _ documents: [Document], conditions: TestConditions = TestConditions(), timing: Timing? = nil,
        title: String = "Earshot recognition report"
    ) -> EvaluationResult {
        let results = documents.map(evaluate(document:))

        var diarization: DiarizationScore? = nil
        let timedDocuments = documents.filter { $0.referenceTurns != nil }
        if !timedDocuments.isEmpty, let scorer = try? DiarizationScorer(configuration: configuration.diarization) {
            let reference = timedDocuments.flatMap { document in
                document.referenceTurns!.map { turn in
                    var turn = turn
                    turn.recording = document.name
                    return turn
                }
            }
            let hypothesis = timedDocuments.flatMap { document in
                document.hypothesis.compactMap { SpeakerTurn(segment: $0, recording: document.name) }
            }
            diarization = scorer.score(reference: reference, hypothesis: hypothesis)
        }

        var permutation: PermutationScorer.Score? = nil
        let speakerDocuments = documents.filter { $0.referenceSpeakers != nil }
        for document in speakerDocuments {
            let hypothesis = document.hypothesis.map {
                SpeakerUtterance(speaker: $0.speaker ?? "unknown", text: $0.text)
            }
            let score = PermutationScorer.score(
                reference: document.referenceSpeakers!, hypothesis: hypothesis, normalizer: normalizer)
            var total = permutation ?? PermutationScorer.Score(counts: .zero, mapping: [:])
            total.counts += score.counts
            for (r, h) in score.mapping { total.mapping[speakerDocuments.count > 1 ? "\(document.name)/\(r)" : r] = h }
            permutation = total
        }

        return EvaluationResult(
            title: title, normalization: configuration.normalization, documents: results, conditions: conditions,
            timing: timing, diarization: diarization, permutationWER: permutation)
    }

    /// Scores one document.
    public func evaluate(document: Document) -> DocumentResult {
        let lineTokens = document.referenceLines.map(normalizer.tokens)
        let segmentTokens = document.hypothesis.map { normalizer.tokens($0.text) }
        let reference = lineTokens.flatMap { $0 }
        let hypothesis = segmentTokens.flatMap { $0 }

        var interner = TokenInterner()
        let referenceIDs = interner.ids(reference)
        let hypothesisIDs = interner.ids(hypothesis)
        let alignment = EditDistance.align(reference: referenceIDs, hypothesis: hypothesisIDs)
        let words = EditDistance.counts(of: alignment)
        let characters = EditDistance.counts(
            reference: CharacterSequence.scalars(of: reference), hypothesis: CharacterSequence.scalars(of: hypothesis))
        let sentences = SentenceMatcher.rows(
            lines: document.referenceLines, lineTokens: lineTokens, segments: document.hypothesis.map(\.text),
            segmentTokens: segmentTokens, alignment: alignment)
        let diff = alignment.map { pair in
            DocumentResult.DiffToken(
                operation: pair.operation, reference: pair.referenceIndex.map { reference[$0] },
                hypothesis: pair.hypothesisIndex.map { hypothesis[$0] })
        }
        return DocumentResult(
            name: document.name, words: words, characters: characters, sentences: sentences, diff: diff,
            normalizedReference: reference.joined(separator: " "),
            normalizedHypothesis: hypothesis.joined(separator: " "))
    }
}
