import Foundation

/// A summary written by a ``LanguageModel``, map-reduce over chunks that fit its context.
///
/// Map: each chunk of numbered transcript lines gets one request for `{abstract, key_points, action_items}` JSON,
/// where every point names the line numbers it comes from (constrained by a JSON schema where the provider
/// supports it). Points whose lines fall outside the chunk, or that cite most of it, are dropped, and a chunk with no valid point, an empty
/// or degenerate abstract, or an abstract in the wrong language fails the whole summary (the caller then falls
/// back to the extractive one). Reduce: with several chunks, one more request writes the abstract from the chunk
/// abstracts (in rounds, when those do not fit at once); key points are kept per chunk in transcript order.
struct ModelSummarizer: Sendable {
    let model: any LanguageModel
    let maximumKeyPoints: Int
    let maximumActionItems: Int
    /// Answer budget per request, in tokens.
    let answerTokens = 400
    /// Instructions and JSON framing per request, in tokens.
    let promptOverhead = 400

    /// The transcript's numbered lines, split into chunks that fit the model's context.
    func chunks(_ segments: [NoteSegment]) -> [Range<Int>] {
        let budget = max(256, model.contextTokens - answerTokens - promptOverhead)
        var chunks: [Range<Int>] = []
        var start = 0
        var used = 0
        for (index, segment) in segments.enumerated() {
            let cost = TokenEstimate.of(Self.line(index, segment)) + 1
            if used + cost > budget, index > start {
                chunks.append(start..<index)
                start = index
                used = 0
            }
            used += cost
        }
        chunks.append(start..<segments.count)
        return chunks
    }

    func summarize(_ segments: [NoteSegment], language: String?) async throws -> NoteSummary {
        let parts = chunks(segments)
        var partials: [Partial] = []
        for range in parts {
            try Task.checkCancellation()
            partials.append(try await summarizeChunk(segments, range: range, language: language))
        }
        var warnings: [String] = []
        let abstract: String
        if partials.count == 1 {
            abstract = partials[0].abstract
        } else {
            do {
                abstract = try await reduce(partials.map(\.abstract), language: language)
            } catch let error as NotesError {
                abstract = ExtractiveSummarizer.truncate(partials.map(\.abstract).joined(separator: " "), to: 800)
                warnings.append("the combined abstract could not be written (\(error.message)); chunk abstracts joined")
            }
        }
        let perChunk = max(1, (maximumKeyPoints + partials.count - 1) / partials.count)
        let keyPoints = Array(
            partials.flatMap { $0.keyPoints.prefix(perChunk) }.prefix(max(maximumKeyPoints, partials.count)))
        let actionItems = Array(partials.flatMap(\.actionItems).prefix(maximumActionItems))
        if partials.count > 1 { warnings.append("summarised in \(partials.count) parts (map-reduce)") }
        return NoteSummary(
            abstract: abstract, keyPoints: keyPoints, actionItems: actionItems, method: .languageModel,
            model: model.name, language: language ?? LanguageDetector.detect(abstract), warnings: warnings)
    }

    // MARK: - Map

    struct Partial {
        var abstract: String
        var keyPoints: [NotePoint]
        var actionItems: [NotePoint]
    }

    private struct Answer: Decodable {
        struct Point: Decodable {
            let text: String?
            let lines: [LenientInt]?
        }
        let abstract: String?
        let keyPoints: [Point]?
        let actionItems: [Point]?

        enum CodingKeys: String, CodingKey {
            case abstract
            case keyPoints = "key_points"
            case actionItems = "action_items"
        }
    }

    func summarizeChunk(_ segments: [NoteSegment], range: Range<Int>, language: String?) async throws -> Partial {
        let lines = range.map { Self.line($0, segments[$0]) }.joined(separator: "\n")
        let languageName = language.map(LanguageCatalog.name(of:)) ?? "the language of the transcript"
        let request = ChatRequest(
            messages: [
                .system("You write concise meeting notes from transcripts. You answer with JSON only."),
                .user(
                    """
                    Transcript lines, each starting with its number in brackets:
                    \(lines)

                    Write notes on these lines as a JSON object with:
                    "abstract": two or three sentences, in your own words, on what is discussed;
                    "key_points": the main points, each {"text": one short sentence, "lines": [numbers of the lines it comes from]};
                    "action_items": tasks someone commits to, each {"text": one short sentence, "lines": [line numbers]}, or [] if none.
                    Use only line numbers from \(range.lowerBound + 1) to \(range.upperBound). Write in \(languageName).
                    """),
            ], maxTokens: answerTokens, jsonSchema: Self.mapSchema)
        let answer = try ModelJSON.decode(Answer.self, from: try await model.complete(request), what: "summary answer")
        return try validate(answer, segments: segments, range: range, language: language)
    }

    private func validate(_ answer: Answer, segments: [NoteSegment], range: Range<Int>, language: String?) throws
        -> Partial
    {
        let abstract = (answer.abstract ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard abstract.count >= 12 else {
            throw NotesError(
                .invalidResponse, "the model wrote no abstract for lines \(range.lowerBound + 1)-\(range.upperBound)")
        }
        guard !Self.isDegenerate(abstract) else {
            throw NotesError(.invalidResponse, "the model's abstract repeats itself: \(ModelJSON.excerpt(abstract))")
        }
        if let language, LanguageCatalog.names[language] != nil, let detected = LanguageDetector.detect(abstract),
            detected != language
        {
            throw NotesError(
                .invalidResponse,
                "the model's abstract is in \(detected), not \(language): \(ModelJSON.excerpt(abstract))")
        }
        func points(_ raw: [Answer.Point]?) -> [NotePoint] {
            var seen = Set<String>()
            return (raw ?? []).compactMap { point in
                let text = (point.text ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                let lines = Set((point.lines ?? []).compactMap(\.value).filter { range.contains($0 - 1) })
                // A "point" citing most of a chunk says nothing about where it came from (a small model's habit
                // is to list every line).
                let tooBroad = range.count >= 4 && lines.count > range.count / 2
                guard text.count >= 3, !lines.isEmpty, !tooBroad, !Self.isDegenerate(text), seen.insert(text).inserted
                else {
                    return nil
                }
                let covered = lines.map { segments[$0 - 1] }
                return NotePoint(
                    text: ExtractiveSummarizer.truncate(text, to: 200), startMs: covered.map(\.startMs).min()!,
                    endMs: covered.map(\.endMs).max()!)
            }
        }
        let keyPoints = points(answer.keyPoints)
        // Faithfulness: a summary may paraphrase, but most of its terms must come from the lines it summarises
        // (SmolLM2-135M was measured inventing whole topics that the line numbers alone do not catch).
        let source = Set(range.flatMap { Terms.of(segments[$0].text) })
        let written = Terms.of(([abstract] + keyPoints.map(\.text)).joined(separator: " "))
        let support = written.isEmpty ? 0 : Double(written.filter(source.contains).count) / Double(written.count)
        guard support >= Self.minimumSupport else {
            throw NotesError(
                .invalidResponse,
                "the model's summary is mostly words that are not in the transcript (\(Int(support * 100)) % found): "
                    + ModelJSON.excerpt(abstract))
        }
        guard !keyPoints.isEmpty else {
            throw NotesError(
                .invalidResponse,
                "no key point of the model names transcript lines \(range.lowerBound + 1)-\(range.upperBound)")
        }
        return Partial(
            abstract: ExtractiveSummarizer.truncate(abstract, to: 800),
            keyPoints: Array(keyPoints.prefix(maximumKeyPoints)),
            actionItems: Array(points(answer.actionItems).prefix(maximumActionItems)))
    }

    // MARK: - Reduce

    private struct AbstractAnswer: Decodable { let abstract: String? }

    /// One abstract from several, in rounds of what fits the context.
    func reduce(_ abstracts: [String], language: String?) async throws -> String {
        var current = abstracts
        let budget = max(256, model.contextTokens - answerTokens - promptOverhead)
        while current.count > 1 {
            try Task.checkCancellation()
            var groups: [[String]] = [[]]
            var used = 0
            for abstract in current {
                let cost = TokenEstimate.of(abstract) + 8
                if used + cost > budget, !groups[groups.count - 1].isEmpty {
                    groups.append([])
                    used = 0
                }
                groups[groups.count - 1].append(abstract)
                used += cost
            }
            var next: [String] = []
            for group in groups {
                next.append(group.count == 1 ? group[0] : try await combine(group, language: language))
            }
            if next.count >= current.count { break }  // nothing merged: stop rather than loop
            current = next
        }
        return current.joined(separator: " ")
    }

    private func combine(_ abstracts: [String], language: String?) async throws -> String {
        let parts = abstracts.enumerated().map { "Part \($0.offset + 1): \($0.element)" }.joined(separator: "\n")
        let languageName = language.map(LanguageCatalog.name(of:)) ?? "the language of the parts"
        let request = ChatRequest(
            messages: [
                .system("You write concise meeting notes. You answer with JSON only."),
                .user(
                    """
                    These are summaries of consecutive parts of one recording:
                    \(parts)

                    Write one abstract of the whole recording, two to four sentences in \(languageName), as a JSON \
                    object {"abstract": "..."}.
                    """),
            ], maxTokens: answerTokens, jsonSchema: Self.reduceSchema)
        let answer = try ModelJSON.decode(
            AbstractAnswer.self, from: try await model.complete(request), what: "combined abstract")
        let abstract = (answer.abstract ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard abstract.count >= 12, !Self.isDegenerate(abstract) else {
            throw NotesError(.invalidResponse, "the combined abstract is empty or repeats itself")
        }
        return ExtractiveSummarizer.truncate(abstract, to: 800)
    }

    /// Share of a chunk summary's terms that must occur in the chunk.
    static let minimumSupport = 0.35

    // MARK: - Prompt parts

    /// `[n] (speaker) text`, numbered from 1.
    static func line(_ index: Int, _ segment: NoteSegment) -> String {
        let speaker = segment.speaker.map { "\($0): " } ?? ""
        return "[\(index + 1)] \(speaker)\(segment.text)"
    }

    /// Text that is mostly one word or one short phrase repeated (a small model's failure mode).
    static func isDegenerate(_ text: String) -> Bool {
        let terms = Terms.of(text)
        guard terms.count >= 8 else { return false }
        return Double(Set(terms).count) < 0.3 * Double(terms.count)
    }

    static let pointSchema = """
        {"type": "object", "properties": {"text": {"type": "string", "maxLength": 200},
         "lines": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 8}},
         "required": ["text", "lines"], "additionalProperties": false}
        """

    static let mapSchema = """
        {"type": "object", "properties": {
          "abstract": {"type": "string", "maxLength": 400},
          "key_points": {"type": "array", "items": \(pointSchema), "maxItems": 6},
          "action_items": {"type": "array", "items": \(pointSchema), "maxItems": 4}},
         "required": ["abstract", "key_points", "action_items"], "additionalProperties": false}
        """

    static let reduceSchema = """
        {"type": "object", "properties": {"abstract": {"type": "string", "maxLength": 400}},
         "required": ["abstract"], "additionalProperties": false}
        """
}
