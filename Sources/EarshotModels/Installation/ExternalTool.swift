import EarshotCore
import Foundation

/// Runs an external program (pip, python3's zipfile, whisper-quantize) to completion, keeping its output and
/// turning a failure into a ``ModelError`` that names the step, the command and the tail of its output.
enum ExternalTool {
    /// Runs `executable` (an absolute path, or a name looked up on `PATH`) with `arguments`; blocks until exit.
    static func run(_ executable: String, _ arguments: [String], step: String) throws(ModelError) {
        let command = ([executable] + arguments).joined(separator: " ")
        let (termination, data): (Subprocess.Termination, Data)
        do { (termination, data) = try Subprocess.run(executable, arguments) } catch {
            throw ModelError(.toolFailed, "\(step): cannot run \(executable): \(error)", underlying: error)
        }
        guard termination.succeeded else {
            let tail = String(decoding: data, as: UTF8.self).split(separator: "\n").suffix(8).joined(separator: "\n")
            throw ModelError(.toolFailed, "\(step) failed: `\(command)` ended with \(termination)\n\(tail)")
        }
    }
}
