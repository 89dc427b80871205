import Foundation

/// A model-free summary: transcript segments ranked by TextRank over TF-IDF vectors and picked without
/// redundancy. Works in every language (CJK and Thai as character bigrams) and never invents text; the fallback
/// when no language model is reachable, and the measured better choice for the built-in 135M model (docs/notes.md).
public struct ExtractiveSummarizer: Sendable {
    /// Size limits of the summary.
    public struct Configuration: Sendable, Hashable {
        /// At most this many key points (fewer for short transcripts: about one per eight segments, at least 3).
        public var maximumKeyPoints: Int
        /// At most this many action items.
        public var maximumActionItems: Int
        /// Segments joined into the abstract.
        public var abstractSegments: Int
        /// A longer key point is cut at a word boundary and ends with "…".
        public var maximumPointCharacters: Int
        /// A longer abstract is cut the same way.
        public var maximumAbstractCharacters: Int

        /// Creates a configuration.
        public init(
            maximumKeyPoints: Int = 6, maximumActionItems: Int = 5, abstractSegments: Int = 2,
            maximumPointCharacters: Int = 280, maximumAbstractCharacters: Int = 600
        ) {
            self.maximumKeyPoints = maximumKeyPoints
            self.maximumActionItems = maximumActionItems
            self.abstractSegments = abstractSegments
            self.maximumPointCharacters = maximumPointCharacters
            self.maximumAbstractCharacters = maximumAbstractCharacters
        }
    }

    /// The limits in use.
    public let configuration: Configuration

    /// Creates a summarizer.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Summarises `segments` (non-empty, transcript order). Pure computation: O(n·terms) plus the similarity
    /// graph, well under a second for a two-hour transcript.
    public func summarize(_ segments: [NoteSegment], language: String?) -> NoteSummary {
        let scores = Self.rank(segments.map(\.text))
        let order = scores.indices.sorted { scores[$0] > scores[$1] }
        let vectors = Self.vectors(segments.map(\.text))
        let pointCount = min(configuration.maximumKeyPoints, max(3, segments.count / 8))
        var chosen: [Int] = []
        for index in order where chosen.count < pointCount {
            guard !segments[index].text.isEmpty else { continue }
            if chosen.contains(where: { Self.cosine(vectors[$0], vectors[index]) > 0.5 }) { continue }
            chosen.append(index)
        }
        let abstractIndices = chosen.prefix(configuration.abstractSegments).sorted()
        let separator = Self.usesSpaces(segments) ? " " : ""
        let abstract = Self.truncate(
            abstractIndices.map { segments[$0].text }.joined(separator: separator),
            to: configuration.maximumAbstractCharacters)
        let keyPoints = chosen.sorted().map { point(segments[$0]) }
        let actions = order.filter { Self.isActionItem(segments[$0].text) }.prefix(configuration.maximumActionItems)
        let actionItems = actions.sorted().map { point(segments[$0]) }
        let detected = language ?? LanguageDetector.detect(segments.prefix(200).map(\.text).joined(separator: " "))
        return NoteSummary(
            abstract: abstract, keyPoints: keyPoints, actionItems: actionItems, method: .extractive,
            language: detected)
    }

    private func point(_ segment: NoteSegment) -> NotePoint {
        NotePoint(
            text: Self.truncate(segment.text, to: configuration.maximumPointCharacters), startMs: segment.startMs,
            endMs: segment.endMs)
    }

    // MARK: - Ranking

    /// TextRank scores (PageRank over the cosine-similarity graph of TF-IDF vectors), one per text; short texts
    /// (fewer than five terms) are damped because they rarely carry a point on their own.
    static func rank(_ texts: [String]) -> [Double] {
        let vectors = vectors(texts)
        let count = texts.count
        guard count > 1 else { return Array(repeating: 1, count: count) }
        // Postings: which texts hold each term, to visit only pairs that share one. In long transcripts a term in
        // more than half the texts (low IDF anyway) is skipped, which keeps the graph sparse.
        var postings: [String: [(Int, Double)]] = [:]
        for (index, vector) in vectors.enumerated() {
            for (term, weight) in vector { postings[term, default: []].append((index, weight)) }
        }
        var edges = Array(repeating: [Int: Double](), count: count)
        for list in postings.values where list.count > 1 && (count < 200 || list.count <= count / 2) {
            for a in 0..<list.count {
                for b in (a + 1)..<list.count {
                    let weight = list[a].1 * list[b].1
                    edges[list[a].0][list[b].0, default: 0] += weight
                    edges[list[b].0][list[a].0, default: 0] += weight
                }
            }
        }
        let outgoing = edges.map { $0.values.reduce(0, +) }
        let damping = 0.85
        var scores = Array(repeating: 1.0 / Double(count), count: count)
        for _ in 0..<40 {
            var next = Array(repeating: (1 - damping) / Double(count), count: count)
            for source in 0..<count where outgoing[source] > 0 {
                let share = damping * scores[source] / outgoing[source]
                for (target, weight) in edges[source] { next[target] += share * weight }
            }
            scores = next
        }
        let termCounts = texts.map { Terms.of($0).count }
        return zip(scores, termCounts).map { score, terms in score * min(1, Double(terms) / 5) }
    }

    /// L2-normalised TF-IDF vectors.
    static func vectors(_ texts: [String]) -> [[String: Double]] {
        let termLists = texts.map(Terms.of)
        var documentFrequency: [String: Int] = [:]
        for terms in termLists {
            for term in Set(terms) { documentFrequency[term, default: 0] += 1 }
        }
        let count = Double(texts.count)
        return termLists.map { terms in
            var vector: [String: Double] = [:]
            for term in terms { vector[term, default: 0] += 1 }
            for (term, frequency) in vector {
                vector[term] = (1 + log(frequency)) * log((count + 1) / Double(documentFrequency[term]!)) + 0.0001
            }
            let norm = sqrt(vector.values.reduce(0) { $0 + $1 * $1 })
            guard norm > 0 else { return vector }
            return vector.mapValues { $0 / norm }
        }
    }

    static func cosine(_ a: [String: Double], _ b: [String: Double]) -> Double {
        let (small, large) = a.count <= b.count ? (a, b) : (b, a)
        return small.reduce(0) { $0 + $1.value * (large[$1.key] ?? 0) }
    }

    // MARK: - Action items

    /// True for a statement (not a question) that commits someone to doing something.
    static func isActionItem(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count >= 6, !trimmed.hasSuffix("?"), !trimmed.hasSuffix("？") else { return false }
        let lowered = " " + trimmed.lowercased() + " "
        return actionCues.contains { lowered.contains($0) }
    }

    /// Phrases that mark a commitment or a task, per language (spaces around Latin words keep them whole).
    static let actionCues: [String] = [
        // en
        " i'll ", " we'll ", " you'll ", " i will ", " we will ", " you will ", " going to ", " need to ",
        " needs to ", " have to ", " has to ", " should ", " must ", " let's ", " todo ", " to-do ",
        " action item", " follow up", " by tomorrow", " next week", " deadline",
        // zh
        "需要", "负责", "下周", "明天", "记得", "安排", "完成", "要做", "请你", "我们要", "我会", "将会",
        // ja
        "します", "しましょう", "必要", "お願い", "までに",
        // ko
        "해야", "하겠습니다", "합시다", "까지",
        // fr, de, es, it, pt, ru
        " il faut ", " nous allons ", " je vais ", " doit ", " devons ", " müssen ", " werde ", " sollten ",
        " vamos a ", " tenemos que ", " hay que ", " debe ", " dobbiamo ", " bisogna ", " precisamos ",
        " temos que ", "нужно", "надо", "должны", "сделаю",
    ]

    // MARK: - Text

    /// False when most text is in a script written without spaces (then segments are joined without one).
    static func usesSpaces(_ segments: [NoteSegment]) -> Bool {
        let sample = segments.prefix(20).map(\.text).joined()
        let unspaced = sample.filter(Terms.isUnspacedScript).count
        return unspaced * 2 < sample.filter(\.isLetter).count
    }

    /// `text` cut to at most `limit` characters at a word boundary, with "…" when cut.
    static func truncate(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        let head = text.prefix(limit - 1)
        if let space = head.lastIndex(of: " "), head.distance(from: head.startIndex, to: space) > limit / 2 {
            return String(head[..<space]) + "…"
        }
        return String(head) + "…"
    }
}
