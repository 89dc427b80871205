import EarshotCore
import EarshotEval
import Foundation

enum EvalTextCommand: Command {
    static let name = "eval text"
    static let spec = CommandSpec(
        name: "earshot eval text",
        abstract: "Score a hypothesis transcript against a reference (WER, CER, MER) and write a report.",
        discussion: """
            Reference lines are sentences; hypothesis lines are recognised segments. Both texts are normalised \
            for --language (en or zh; 'none' only splits on whitespace). Exits 3 when --max-wer is exceeded, \
            so the command can gate CI.
            """,
        options: [
            .init("ref", valueName: "FILE", help: "Reference transcript (UTF-8 text, one sentence per line)."),
            .init("hyp", valueName: "FILE", help: "Recognised transcript (one segment per line)."),
            .init("language", valueName: "LANG", help: "en (default), zh or none."),
        ] + EvalOutput.options)

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        guard let ref = arguments.value("ref"), let hyp = arguments.value("hyp") else {
            throw ArgumentError(command: spec.name, "both --ref FILE and --hyp FILE are required")
        }
        let normalization: TextNormalizer.Configuration
        switch arguments.value("language") ?? "en" {
        case "none": normalization = .none
        case let code:
            guard let language = TextNormalizer.Language(rawValue: code) else {
                throw ArgumentError(command: spec.name, "--language must be en, zh or none, not '\(code)'")
            }
            normalization = .defaults(for: language)
        }
        let output = try EvalOutput(arguments, command: spec.name)

        let referenceLines = try ReferenceFiles.readLines(URL(fileURLWithPath: ref))
        let hypothesisLines = try ReferenceFiles.readLines(URL(fileURLWithPath: hyp))
        let document = TextEvaluation.Document(
            name: URL(fileURLWithPath: ref).deletingPathExtension().lastPathComponent, referenceLines: referenceLines,
            hypothesis: hypothesisLines.map { HypothesisSegment(text: $0) })
        let evaluation = TextEvaluation(configuration: .init(normalization: normalization))
        let result = evaluation.evaluate([document], conditions: TestConditions(model: "text only"))

        let words = result.words
        print(
            String(
                format: "WER %.4f  CER %.4f  MER %.4f  accuracy %.4f  (ref words %d: S %d D %d I %d)",
                result.wordErrorRate, result.characterErrorRate, result.matchErrorRate, result.accuracy,
                words.referenceLength, words.substitutions, words.deletions, words.insertions))
        return try output.finish(result) ?? 0
    }
}
