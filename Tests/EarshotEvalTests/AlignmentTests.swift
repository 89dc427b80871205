import EarshotEval
import EarshotTestSupport
import Testing

/// Levenshtein alignment and the rates derived from it, on examples worked by hand.
@Suite struct AlignmentTests {
    func ids(_ reference: String, _ hypothesis: String) -> ([Int32], [Int32]) {
        var interner = TokenInterner()
        let r = interner.ids(reference.split(separator: " ").map(String.init))
        let h = interner.ids(hypothesis.split(separator: " ").map(String.init))
        return (r, h)
    }

    @Test func substitutionAndDeletionAreFoundAndPlaced() {
        let (r, h) = ids("the cat sat on the mat", "the cat sit on mat")
        let counts = EditDistance.counts(reference: r, hypothesis: h)
        #expect(counts == ErrorCounts(hits: 4, substitutions: 1, deletions: 1, insertions: 0))
        #expect(counts.errorRate == 2.0 / 6.0)
        #expect(counts.accuracy == 1 - 2.0 / 6.0)
        #expect(counts.matchErrorRate == 2.0 / 6.0)

        let alignment = EditDistance.align(reference: r, hypothesis: h)
        #expect(alignment.map(\.operation) == [.match, .match, .substitution, .match, .deletion, .match])
        #expect(alignment[2] == AlignedPair(operation: .substitution, referenceIndex: 2, hypothesisIndex: 2))
        #expect(alignment[4] == AlignedPair(operation: .deletion, referenceIndex: 4, hypothesisIndex: nil))
    }

    @Test func insertionIsPlacedWithItsHypothesisIndex() {
        let (r, h) = ids("a b c d", "a x c y d")
        let alignment = EditDistance.align(reference: r, hypothesis: h)
        #expect(EditDistance.counts(of: alignment) == ErrorCounts(hits: 3, substitutions: 1, insertions: 1))
        #expect(alignment.contains(AlignedPair(operation: .insertion, referenceIndex: nil, hypothesisIndex: 3)))
        #expect(alignment.contains(AlignedPair(operation: .substitution, referenceIndex: 1, hypothesisIndex: 1)))
    }

    @Test func equallyCheapAlignmentsAreBrokenLikeJiwer() {
        // "a b" → "b c" costs 2 either way (two substitutions, or delete a + insert c); jiwer reports S = 2.
        let (r, h) = ids("a b", "b c")
        #expect(EditDistance.counts(reference: r, hypothesis: h) == ErrorCounts(substitutions: 2))
        #expect(
            EditDistance.counts(of: EditDistance.align(reference: r, hypothesis: h)) == ErrorCounts(substitutions: 2))
    }

    @Test func emptyReferenceAndHypothesisScoreZero() {
        let counts = EditDistance.counts(reference: [], hypothesis: [])
        #expect(counts == .zero)
        #expect(counts.errorRate == 0)
        #expect(counts.matchErrorRate == 0)
        #expect(EditDistance.align(reference: [], hypothesis: []).isEmpty)
    }

    @Test func emptyReferenceCountsEveryHypothesisWordAsAnInsertion() {
        let (r, h) = ids("", "oh hello there")
        let counts = EditDistance.counts(reference: r, hypothesis: h)
        #expect(counts == ErrorCounts(insertions: 3))
        #expect(counts.referenceLength == 0)
        #expect(counts.errorRate == 3)
        #expect(counts.matchErrorRate == 1)
        // In a corpus the utterance adds its insertions to the numerator only.
        let (r2, h2) = ids("one two three four", "one two three four")
        let corpus = counts + EditDistance.counts(reference: r2, hypothesis: h2)
        #expect(corpus.errorRate == 3.0 / 4.0)
    }

    @Test func emptyHypothesisDeletesEverything() {
        let (r, h) = ids("one two", "")
        #expect(EditDistance.counts(reference: r, hypothesis: h) == ErrorCounts(deletions: 2))
        #expect(EditDistance.counts(reference: r, hypothesis: h).errorRate == 1)
    }

    @Test func linearMemoryCountsAgreeWithTheFullBacktrace() {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<500 {
            let r = (0..<Int(generator.next() % 40)).map { _ in Int32(generator.next() % 6) }
            let h = (0..<Int(generator.next() % 40)).map { _ in Int32(generator.next() % 6) }
            let alignment = EditDistance.align(reference: r, hypothesis: h)
            let counts = EditDistance.counts(reference: r, hypothesis: h)
            #expect(EditDistance.counts(of: alignment) == counts)
            #expect(counts.referenceLength == r.count)
            #expect(counts.hypothesisLength == h.count)
            // The backtrace visits every token once, in order.
            #expect(alignment.compactMap(\.referenceIndex) == Array(r.indices))
            #expect(alignment.compactMap(\.hypothesisIndex) == Array(h.indices))
        }
    }

    @Test func internerGivesEqualStringsEqualIDs() {
        var interner = TokenInterner()
        #expect(interner.ids(["a", "b", "a"]) == [0, 1, 0])
        #expect(interner.token(1) == "b")
        #expect(interner.count == 2)
        // The fast path splits on any Unicode whitespace, like Python's str.split().
        #expect(interner.ids(splittingOnWhitespace: "  a\tb\u{3000}c \n a ") == [0, 1, 2, 0])
        #expect(interner.ids(splittingOnWhitespace: " \t ").isEmpty)
    }
}
