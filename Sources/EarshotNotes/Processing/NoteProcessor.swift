/// Summaries and translations of transcripts: a ``LanguageModel`` when one is configured and reachable, the
/// ``ExtractiveSummarizer`` otherwise.
///
/// ``summarize(_:language:)`` never fails because of the model: when it is unreachable, times out, errs, or writes
/// something that fails validation, the result is the extractive summary, labelled `method == .extractive` with
/// the reason in `warnings`. ``translate(_:from:to:)`` needs the model and throws its error when it fails; its
/// output passes the ``TranslationCheck`` gate or the call throws `lowQuality` saying what to configure.
/// Safe to call concurrently; calls honour task cancellation (`CancellationError`).
public struct NoteProcessor: NoteProcessing {
    /// Which summary leads.
    public enum SummaryMethod: String, Sendable, Hashable, CaseIterable {
        /// The language model writes it; the extractive summary is the fallback.
        case languageModel = "llm"
        /// Sentences ranked from the transcript; the language model is not asked (translations still use it).
        case extractive
    }

    /// Options with defaults.
    public struct Configuration: Sendable, Hashable {
        /// Which summary leads (default: the language model).
        public var summaryMethod: SummaryMethod
        /// Size limits of summaries.
        public var extractive: ExtractiveSummarizer.Configuration
        /// Segments per translation request, at most.
        public var translationBatchSegments: Int
        /// The quality gate every translation passes.
        public var translationCheck: TranslationCheck.Configuration

        /// Creates a configuration.
        public init(
            summaryMethod: SummaryMethod = .languageModel,
            extractive: ExtractiveSummarizer.Configuration = .init(), translationBatchSegments: Int = 8,
            translationCheck: TranslationCheck.Configuration = .init()
        ) {
            self.summaryMethod = summaryMethod
            self.extractive = extractive
            self.translationBatchSegments = translationBatchSegments
            self.translationCheck = translationCheck
        }
    }

    /// The language model, nil when none is configured.
    public let model: (any LanguageModel)?
    /// The options in use.
    public let configuration: Configuration

    /// Creates a processor; `model` nil means extractive summaries only (translations then throw `unavailable`).
    public init(model: (any LanguageModel)?, configuration: Configuration = Configuration()) {
        self.model = model
        self.configuration = configuration
    }

    public func summarize(_ segments: [NoteSegment], language: String?) async throws -> NoteSummary {
        try Self.validate(segments)
        let language = language.map(LanguageCatalog.normalize)
        let extractive = ExtractiveSummarizer(configuration: configuration.extractive)
        guard let model else {
            var summary = extractive.summarize(segments, language: language)
            summary.warnings.append("no language model is configured (llm-base-url, llm-managed): extractive summary")
            return summary
        }
        guard configuration.summaryMethod == .languageModel else {
            var summary = extractive.summarize(segments, language: language)
            summary.warnings.append("summary-method is extractive: sentences ranked from the transcript")
            return summary
        }
        let summarizer = ModelSummarizer(
            model: model, maximumKeyPoints: configuration.extractive.maximumKeyPoints,
            maximumActionItems: configuration.extractive.maximumActionItems)
        do {
            return try await summarizer.summarize(segments, language: language)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            try Task.checkCancellation()
            let reason = (error as? NotesError)?.message ?? "\(error)"
            var summary = extractive.summarize(segments, language: language)
            summary.warnings.append("the language model \(model.name) failed (\(reason)): extractive summary")
            return summary
        }
    }

    public func translate(_ segments: [NoteSegment], from source: String?, to target: String) async throws
        -> NoteTranslation
    {
        let target = LanguageCatalog.normalize(target)
        guard LanguageCatalog.translationTargets.contains(target) else {
            throw NotesError(
                .unsupportedLanguage,
                "cannot translate into '\(target)': choose one of "
                    + LanguageCatalog.translationTargets.joined(separator: ", "))
        }
        try Self.validate(segments)
        let source = source.map(LanguageCatalog.normalize)
        if source == target {
            return NoteTranslation(
                targetLanguage: target, segments: segments, method: .languageModel, detectedLanguage: target,
                warnings: ["the transcript is already in \(target); nothing was translated"])
        }
        guard let model else {
            throw NotesError(
                .invalidConfiguration,
                "translation needs a language model: set llm-base-url, or keep llm-managed on and run make setup")
        }
        let translator = ModelTranslator(model: model, batchSegments: max(1, configuration.translationBatchSegments))
        let (translation, verdict) = try await translator.translate(
            segments, from: source, to: target, check: TranslationCheck(configuration: configuration.translationCheck))
        guard verdict.passes else { throw Self.lowQuality(verdict, model: model.name, target: target) }
        return translation
    }

    /// The error of a translation that failed its gate: what was wrong, and what to configure.
    static func lowQuality(_ verdict: TranslationCheck.Verdict, model: String, target: String) -> NotesError {
        let name = LanguageCatalog.name(of: target)
        let findings = verdict.warnings.isEmpty ? "" : " (" + verdict.warnings.joined(separator: "; ") + ")"
        return NotesError(
            .lowQuality,
            "the \(name) translation by \(model) failed its quality checks: \(verdict.failed) of \(verdict.total) "
                + "segments are unusable\(findings). \(model) cannot translate into \(name) reliably: configure a "
                + "capable model with llm-base-url (and llm-model, llm-api-key), e.g. an OpenAI-compatible server "
                + "running a multilingual instruction model")
    }

    /// A usable transcript: at least one segment with text, times non-negative and in order within a segment.
    static func validate(_ segments: [NoteSegment]) throws {
        guard segments.contains(where: { !$0.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) else {
            throw NotesError(.invalidInput, "the transcript has no text: transcribe the recording first")
        }
        if let (index, segment) = segments.enumerated().first(where: {
            $0.element.startMs < 0 || $0.element.endMs < $0.element.startMs
        }) {
            throw NotesError(
                .invalidInput,
                "segment \(index + 1) has start_ms \(segment.startMs) and end_ms \(segment.endMs): times must be "
                    + "non-negative with start_ms ≤ end_ms")
        }
    }
}
