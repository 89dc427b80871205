import EarshotEval
import EarshotTestSupport
import Foundation
import Testing

/// EarshotEval against jiwer 4 on the seeded pairs of Tests/Fixtures/eval/jiwer_pairs.json
/// (regenerate with Benchmarks/eval/make_fixture.py).
@Suite struct JiwerAgreementTests {
    struct Expected: Decodable {
        let hits, substitutions, deletions, insertions: Int
        let wer, mer: Double
        let characterHits, characterSubstitutions, characterDeletions, characterInsertions: Int
        let cer: Double

        var words: ErrorCounts {
            ErrorCounts(hits: hits, substitutions: substitutions, deletions: deletions, insertions: insertions)
        }
        var characters: ErrorCounts {
            ErrorCounts(
                hits: characterHits, substitutions: characterSubstitutions, deletions: characterDeletions,
                insertions: characterInsertions)
        }
    }
    struct Pair: Decodable {
        let reference: String
        let hypothesis: String
        let expected: Expected
    }
    struct Fixture: Decodable {
        let jiwer: String
        let pairs: [Pair]
        let corpus: Expected
    }

    static func load() throws -> Fixture {
        try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: TestEnvironment.fixture("eval/jiwer_pairs.json")))
    }

    func check(_ result: (words: ErrorCounts, characters: ErrorCounts), _ expected: Expected, _ label: String) {
        let w = result.words
        #expect(w == expected.words, "\(label)")
        #expect(abs(w.errorRate - expected.wer) < 1e-9, "\(label)")
        #expect(abs(w.matchErrorRate - expected.mer) < 1e-9, "\(label)")
        let c = result.characters
        #expect(c == expected.characters, "\(label)")
        #expect(abs(c.errorRate - expected.cer) < 1e-9, "\(label)")
    }

    @Test func everyPairAndTheCorpusMatchJiwer() throws {
        let fixture = try Self.load()
        #expect(fixture.jiwer.hasPrefix("4."))
        #expect(fixture.pairs.count == 300)
        let evaluation = TextEvaluation(configuration: .init(normalization: .none))
        let documents = fixture.pairs.enumerated().map { index, pair in
            TextEvaluation.Document(name: "pair-\(index)", reference: pair.reference, hypothesis: pair.hypothesis)
        }
        let result = evaluation.evaluate(documents)
        for (index, pair) in fixture.pairs.enumerated() {
            let document = result.documents[index]
            check(
                (document.words, document.characters), pair.expected,
                "pair \(index): \(pair.reference) | \(pair.hypothesis)")
        }
        check((result.words, result.characters), fixture.corpus, "corpus")
        #expect(abs(result.wordErrorRate - fixture.corpus.wer) < 1e-9)
    }

    @Test func pairsBenchmarkTotalsMatchJiwer() throws {
        let fixture = try Self.load()
        let counts = PairsBenchmark.score(fixture.pairs.map { ($0.reference, $0.hypothesis) })
        #expect(counts == fixture.corpus.words)
        #expect(abs(counts.errorRate - fixture.corpus.wer) < 1e-9)
    }
}
