import EarshotCore
import EarshotEval
import Foundation

/// The options `earshot eval` and `earshot eval text` share: `--report`, `--json` and the `--max-wer` gate.
struct EvalOutput {
    static let options: [CommandSpec.Option] = [
        .init("report", valueName: "OUT.html", help: "Write the HTML report here."),
        .init("json", valueName: "OUT.json", help: "Write the machine-readable result here."),
        .init("max-wer", valueName: "RATE", help: "Fail (exit 3) when the corpus WER is above this (e.g. 0.1)."),
    ]

    let command: String
    let report: String?
    let json: String?
    let maxWER: Double?

    init(_ arguments: ParsedArguments, command: String) throws(ArgumentError) {
        self.command = command
        report = arguments.value("report")
        json = arguments.value("json")
        guard let text = arguments.value("max-wer") else {
            maxWER = nil
            return
        }
        guard let value = Double(text), value >= 0 else {
            throw ArgumentError(command: command, "--max-wer must be a non-negative number, not '\(text)'")
        }
        maxWER = value
    }

    /// Writes the requested files; returns 3 (after saying why) when the WER is above `--max-wer`, else nil.
    func finish(_ result: EvaluationResult) throws -> Int32? {
        if let report { try Data(result.html().utf8).write(to: URL(fileURLWithPath: report), options: .atomic) }
        if let json { try result.jsonData().write(to: URL(fileURLWithPath: json), options: .atomic) }
        guard let maxWER, result.wordErrorRate > maxWER else { return nil }
        writeError(String(format: "\(command): WER %.4f is above --max-wer %.4f", result.wordErrorRate, maxWER))
        return 3
    }
}
