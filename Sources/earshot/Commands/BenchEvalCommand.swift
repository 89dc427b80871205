import EarshotCore
import EarshotEval
import Foundation

enum BenchEvalCommand: Command {
    static let name = "bench eval"
    static let spec = CommandSpec(
        name: "earshot bench eval",
        abstract: "Score a file of (reference, hypothesis) pairs with no normalisation and time it (make bench-eval).",
        options: [
            .init(
                "pairs", valueName: "FILE",
                help: "reference<TAB>hypothesis per line, as Benchmarks/eval/bench.py writes."),
            .init("repeat", valueName: "N", help: "Timed runs; the fastest is reported (default 3)."),
        ])

    struct Line: Encodable {
        let scorer: String
        let pairs: Int
        let hits: Int
        let substitutions: Int
        let deletions: Int
        let insertions: Int
        let wer: Double
        let seconds: Double
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        guard let path = arguments.value("pairs") else {
            throw ArgumentError(command: spec.name, "--pairs FILE is required")
        }
        guard let repeats = Int(arguments.value("repeat") ?? "3"), repeats >= 1 else {
            throw ArgumentError(command: spec.name, "--repeat must be a positive integer")
        }
        var best: PairsBenchmark.Result?
        for _ in 0..<repeats {
            let result = try PairsBenchmark.run(pairsFile: URL(fileURLWithPath: path))
            if best == nil || result.elapsedSeconds < best!.elapsedSeconds { best = result }
        }
        let result = best!
        let counts = result.counts
        let line = Line(
            scorer: "earshot \(EarshotVersion.current)", pairs: result.pairs, hits: counts.hits,
            substitutions: counts.substitutions, deletions: counts.deletions, insertions: counts.insertions,
            wer: result.wordErrorRate, seconds: result.elapsedSeconds)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(line), as: UTF8.self))
        return 0
    }
}
