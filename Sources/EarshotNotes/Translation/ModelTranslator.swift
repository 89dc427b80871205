import Foundation

/// A transcript translated by a ``LanguageModel`` segment by segment, so every segment keeps its times and
/// speaker.
///
/// Segments go in numbered batches (at most ``batchSegments`` and what fits the context) with a JSON schema asking
/// for exactly one translation per segment. A batch whose answer is unusable is retried one segment at a time
/// with a plain-text prompt; a segment that still fails keeps its source text. The output then goes through
/// ``TranslationCheck`` (language, loops, commentary, length, numbers), whose verdict the caller acts on.
struct ModelTranslator: Sendable {
    let model: any LanguageModel
    let batchSegments: Int
    let answerTokens = 1024

    func translate(_ segments: [NoteSegment], from source: String?, to target: String, check: TranslationCheck)
        async throws -> (translation: NoteTranslation, verdict: TranslationCheck.Verdict)
    {
        var translated: [String?] = []
        for batch in batches(segments) {
            try Task.checkCancellation()
            let texts = batch.map { segments[$0].text }
            var answers: [String?]
            do {
                answers = try await translateBatch(texts, from: source, to: target)
            } catch let error as NotesError where error.code == .invalidResponse {
                answers = Array(repeating: nil, count: texts.count)
            }
            for (offset, answer) in answers.enumerated() where answer == nil || answer!.isEmpty {
                try Task.checkCancellation()
                do {
                    answers[offset] = try await translateOne(texts[offset], from: source, to: target)
                } catch let error as NotesError where error.code == .invalidResponse {
                    answers[offset] = nil
                }
            }
            translated += answers
        }
        return Self.assemble(
            segments, translated: translated, target: target, source: source, model: model.name, check: check)
    }

    /// Consecutive index ranges of at most `batchSegments` segments whose prompt and answer fit the context.
    func batches(_ segments: [NoteSegment]) -> [Range<Int>] {
        // The answer may be twice the source's tokens (CJK from English), so the source gets a third of what is left.
        let budget = max(128, min(answerTokens, (model.contextTokens - 400) / 3))
        var batches: [Range<Int>] = []
        var start = 0
        var used = 0
        for (index, segment) in segments.enumerated() {
            let cost = TokenEstimate.of(segment.text) + 4
            if index > start, used + cost > budget || index - start >= batchSegments {
                batches.append(start..<index)
                start = index
                used = 0
            }
            used += cost
        }
        if start < segments.count { batches.append(start..<segments.count) }
        return batches
    }

    private struct BatchAnswer: Decodable {
        struct Item: Decodable {
            let n: LenientInt?
            let text: String?
        }
        let translations: [Item]?
    }

    /// One translation per text, nil where the answer had none.
    func translateBatch(_ texts: [String], from source: String?, to target: String) async throws -> [String?] {
        let targetName = LanguageCatalog.name(of: target)
        let sourcePhrase = source.map { " from \(LanguageCatalog.name(of: $0))" } ?? ""
        let numbered = texts.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        let request = ChatRequest(
            messages: [
                .system(
                    "You are a professional translator. You translate into \(targetName) and answer with JSON only."),
                .user(
                    """
                    Translate each numbered line\(sourcePhrase) into \(targetName):
                    \(numbered)

                    Answer {"translations": [{"n": line number, "text": the \(targetName) translation}, ...]} with \
                    exactly \(texts.count) items, in order.
                    """),
            ],
            maxTokens: min(answerTokens, texts.reduce(32) { $0 + TokenEstimate.of($1) * 3 + 16 }),
            jsonSchema: Self.batchSchema(count: texts.count, maximumLength: texts.map(\.count).max()! * 4 + 60))
        let answer = try ModelJSON.decode(
            BatchAnswer.self, from: try await model.complete(request), what: "translation answer")
        let items = answer.translations ?? []
        var result = [String?](repeating: nil, count: texts.count)
        let numbers = items.compactMap { $0.n?.value }
        let numbered1toN = Set(numbers) == Set(1...texts.count) && numbers.count == texts.count
        for (position, item) in items.enumerated() {
            let index = numbered1toN ? item.n!.value! - 1 : position
            guard result.indices.contains(index) else { continue }
            result[index] = Self.clean(item.text ?? "", source: texts[index])
        }
        return result
    }

    /// One text in a plain-text exchange (the retry for a batch that failed).
    func translateOne(_ text: String, from source: String?, to target: String) async throws -> String? {
        let targetName = LanguageCatalog.name(of: target)
        let sourcePhrase = source.map { " from \(LanguageCatalog.name(of: $0))" } ?? ""
        let request = ChatRequest(
            messages: [
                .system("You are a professional translator. Reply with the translation only."),
                .user("Translate\(sourcePhrase) into \(targetName):\n\n\(text)"),
            ], maxTokens: min(answerTokens, TokenEstimate.of(text) * 3 + 32))
        return Self.clean(try await model.complete(request), source: text)
    }

    /// The answer trimmed of quotes and labels; nil when it is empty or runs away (far longer than the source).
    static func clean(_ answer: String, source: String) -> String? {
        var text = answer.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count >= 2, let first = text.first, let last = text.last, "\"“「'".contains(first),
            "\"”」'".contains(last)
        {
            text = String(text.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
        }
        guard !text.isEmpty, text.count <= source.count * 4 + 60 else { return nil }
        return text
    }

    /// The result with one segment per source segment (a segment without a translation keeps its source text)
    /// and the verdict of `check` on it.
    static func assemble(
        _ segments: [NoteSegment], translated: [String?], target: String, source: String?, model: String,
        check: TranslationCheck = TranslationCheck()
    ) -> (translation: NoteTranslation, verdict: TranslationCheck.Verdict) {
        let output = zip(segments, translated).map { segment, text in
            var copy = segment
            if let text { copy.text = text }
            return copy
        }
        let verdict = check.verdict(source: segments, output: translated, sourceLanguage: source, target: target)
        let translation = NoteTranslation(
            targetLanguage: target, segments: output, method: .languageModel, model: model,
            detectedLanguage: verdict.detectedLanguage, warnings: verdict.warnings)
        return (translation, verdict)
    }

    static func batchSchema(count: Int, maximumLength: Int) -> String {
        """
        {"type": "object", "properties": {"translations": {"type": "array", "minItems": \(count), "maxItems": \(count),
          "items": {"type": "object", "properties": {"n": {"type": "integer"},
                                                      "text": {"type": "string", "maxLength": \(maximumLength)}},
                    "required": ["n", "text"], "additionalProperties": false}}},
         "required": ["translations"], "additionalProperties": false}
        """
    }
}
