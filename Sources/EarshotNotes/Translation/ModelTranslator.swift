import Foundation

/// A transcript translated by a ``LanguageModel`` segment by segment, so every segment keeps its times and
/// speaker.
///
/// Segments go in numbered batches (at most ``batchSegments`` and what fits the context) with a JSON schema asking
/// for exactly one translation per segment. A batch whose answer is unusable is retried one segment at a time
/// with a plain-text prompt; a segment that still fails keeps its source text. Every output segment's language is
/// detected (``LanguageDetector``): segments not in the target, left untranslated or kept as source are counted
/// in `warnings`, so a weak model's output is flagged rather than passed off as a translation.
struct ModelTranslator: Sendable {
    let model: any LanguageModel
    let batchSegments: Int
    let answerTokens = 1024

    func translate(_ segments: [NoteSegment], from source: String?, to target: String) async throws
        -> NoteTranslation
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
        return Self.assemble(segments, translated: translated, target: target, source: source, model: model.name)
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

    /// The result with one segment per source segment and the quality warnings.
    static func assemble(
        _ segments: [NoteSegment], translated: [String?], target: String, source: String?, model: String
    ) -> NoteTranslation {
        var output: [NoteSegment] = []
        var failed = 0
        var untranslated = 0
        var unrecognised = 0
        var otherLanguages: [String: Int] = [:]
        for (segment, text) in zip(segments, translated) {
            var copy = segment
            guard let text else {
                failed += 1
                output.append(copy)
                continue
            }
            copy.text = text
            output.append(copy)
            let sourceLanguage = source ?? LanguageDetector.detect(segment.text)
            if text == segment.text, sourceLanguage != target, LanguageDetector.detect(text) != target {
                untranslated += 1
            } else if let detected = LanguageDetector.detect(text) {
                if detected != target { otherLanguages[detected, default: 0] += 1 }
            } else if text.filter(\.isLetter).count >= 12 {
                unrecognised += 1  // long enough to tell, yet no known language: usually garbled output
            }
        }
        let total = segments.count
        var warnings: [String] = []
        let detected = LanguageDetector.detect(output.map(\.text).joined(separator: " "), minimumLetters: 4)
        let wrong = otherLanguages.values.reduce(0, +)
        if wrong > 0 {
            let breakdown = otherLanguages.sorted { $0.value > $1.value }.map { "\($0.key) ×\($0.value)" }
            warnings.append(
                "\(wrong) of \(total) segments are not in \(target) (detected: \(breakdown.joined(separator: ", ")))")
        }
        if unrecognised > 0 {
            warnings.append("\(unrecognised) of \(total) segments could not be recognised as \(target)")
        }
        if untranslated > 0 { warnings.append("\(untranslated) of \(total) segments came back untranslated") }
        if failed > 0 {
            warnings.append("\(failed) of \(total) segments could not be translated; their source text is kept")
        }
        if let detected, detected != target {
            warnings.append(
                "the translation reads as \(LanguageCatalog.name(of: detected)), not \(LanguageCatalog.name(of: target)): "
                    + "\(model) does not handle \(target) well; configure a stronger model (llm-base-url, llm-model)")
        } else if detected == nil, wrong + untranslated + failed > total / 2 {
            warnings.append("the output language could not be recognised as \(LanguageCatalog.name(of: target))")
        }
        return NoteTranslation(
            targetLanguage: target, segments: output, method: .languageModel, model: model, detectedLanguage: detected,
            warnings: warnings)
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
