import EarshotEval
import Testing

/// The per-sentence table: whole segments to lines, merged lines flagged, full text authoritative.
@Suite struct SentenceComparisonTests {
    let evaluation = TextEvaluation(configuration: .init(language: .english))

    func document(_ lines: [String], _ segments: [String]) -> DocumentResult {
        evaluation.evaluate(
            document: .init(name: "t", referenceLines: lines, hypothesis: segments.map { HypothesisSegment(text: $0) }))
    }

    @Test func linesMergedIntoOneSegmentAreFlaggedNotCountedWrong() {
        let result = document(
            ["Hello world.", "How are you?", "Fine, thanks."], ["hello world how are you", "fine thanks"])
        #expect(result.words == ErrorCounts(hits: 7))
        #expect(result.sentences.count == 2)
        let merged = result.sentences[0]
        #expect(merged.status == .merged)
        #expect(merged.referenceLines == [0, 1])
        #expect(merged.segments == [0])
        #expect(merged.counts == ErrorCounts(hits: 5))
        #expect(result.sentences[1].status == .aligned)
        #expect(result.sentences[1].referenceLines == [2])
    }

    @Test func aSegmentIsNeverSplitAcrossLines() {
        // The recogniser put "three" of line 1 at the start of its second segment.
        let result = document(["one two three", "four five"], ["one two", "three four five"])
        #expect(result.words == ErrorCounts(hits: 5))
        #expect(result.sentences.map(\.status) == [.aligned, .aligned])
        #expect(result.sentences[0].segments == [0])
        #expect(result.sentences[0].counts == ErrorCounts(hits: 2, deletions: 1))
        #expect(result.sentences[1].segments == [1])
        #expect(result.sentences[1].counts == ErrorCounts(hits: 2, insertions: 1))
    }

    @Test func aLineNoSegmentCoversIsMissed() {
        let result = document(["good morning", "see you later"], ["good morning"])
        #expect(result.sentences.map(\.status) == [.aligned, .missed])
        #expect(result.sentences[1].counts == ErrorCounts(deletions: 3))
        #expect(result.words == ErrorCounts(hits: 2, deletions: 3))
    }

    @Test func insertionOnlySegmentsFollowTheirNeighbour() {
        let result = document(["good morning"], ["good morning", "yeah"])
        #expect(result.sentences.count == 1)
        #expect(result.sentences[0].segments == [0, 1])
        #expect(result.sentences[0].counts == ErrorCounts(hits: 2, insertions: 1))
    }

    @Test func segmentsWithoutAnyReferenceAreExtra() {
        let result = document([], ["hello"])
        #expect(result.sentences.map(\.status) == [.extra])
        #expect(result.words == ErrorCounts(insertions: 1))
    }

    @Test func chineseLinesAreComparedPerCharacter() {
        let chinese = TextEvaluation(configuration: .init(language: .chinese))
        let result = chinese.evaluate(
            document: .init(
                name: "zh", referenceLines: ["我有三个iPhone。", "今天天气很好。"],
                hypothesis: [HypothesisSegment(text: "嗯，我有3个iphone今天天气真好")]))
        #expect(result.words == ErrorCounts(hits: 10, substitutions: 1))  // 11 tokens: 我 有 3 个 iphone 今 天 天 气 很 好
        #expect(result.sentences.count == 1)
        #expect(result.sentences[0].status == .merged)
        // CER: 我有 3 个 iphone今天天气很好 — one character differs.
        #expect(result.characters.substitutions == 1)
        #expect(result.characters.errors == 1)
    }
}
