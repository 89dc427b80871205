import EarshotCore
public import Foundation

/// Corpus scoring of many (reference, hypothesis) pairs with no normalisation, for `make bench-eval`.
///
/// The pairs file has one pair per line, either `reference<TAB>hypothesis` (TSV, what
/// `Benchmarks/eval/bench.py` writes) or a JSON object `{"ref": "…", "hyp": "…"}` (JSONL). Tokens are the
/// whitespace-separated words, as with jiwer's default transform, so the totals equal
/// `jiwer.process_words(refs, hyps)`.
public enum PairsBenchmark {
    /// Totals and time of one run.
    public struct Result: Sendable, Hashable, Codable {
        /// Number of pairs scored.
        public var pairs: Int
        /// Summed word counts.
        public var counts: ErrorCounts
        /// Corpus WER = errors / reference words.
        public var wordErrorRate: Double { counts.errorRate }
        /// Seconds spent tokenising, interning and aligning (file reading excluded).
        public var elapsedSeconds: Double
    }

    /// Reads a pairs file. - Throws: ``EvalError/Code/unreadableFile`` or ``EvalError/Code/malformedPairs``.
    public static func readPairs(_ url: URL) throws(EvalError) -> [(reference: String, hypothesis: String)] {
        let text = try ReferenceFiles.readText(url)
        var pairs: [(String, String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if line.isEmpty { continue }
            if line.first == "{" {
                struct Row: Decodable {
                    let ref: String
                    let hyp: String
                }
                guard let row = try? JSONDecoder().decode(Row.self, from: Data(line.utf8)) else {
                    throw EvalError(.malformedPairs, "line \(index + 1): expected {\"ref\": \"…\", \"hyp\": \"…\"}")
                }
                pairs.append((row.ref, row.hyp))
            } else {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                guard fields.count == 2 else {
                    throw EvalError(
                        .malformedPairs,
                        "line \(index + 1) has \(fields.count) tab-separated fields; expected `reference<TAB>hypothesis`"
                    )
                }
                pairs.append((String(fields[0]), String(fields[1])))
            }
        }
        return pairs
    }

    /// Scores the pairs of a file and times the scoring.
    public static func run(pairsFile url: URL) throws(EvalError) -> Result {
        let pairs = try readPairs(url)
        let clock = ContinuousClock()
        var counts = ErrorCounts.zero
        let elapsed = clock.measure {
            counts = score(pairs)
        }
        return Result(pairs: pairs.count, counts: counts, elapsedSeconds: elapsed.seconds)
    }

    /// Summed counts of whitespace-tokenised pairs.
    public static func score(_ pairs: [(reference: String, hypothesis: String)]) -> ErrorCounts {
        var interner = TokenInterner()
        var total = ErrorCounts.zero
        for pair in pairs {
            let reference = interner.ids(splittingOnWhitespace: pair.reference)
            let hypothesis = interner.ids(splittingOnWhitespace: pair.hypothesis)
            total += EditDistance.counts(reference: reference, hypothesis: hypothesis)
        }
        return total
    }
}
