import Foundation

/// Runs an external program (pip, python3's zipfile, whisper-quantize) to completion, keeping its output and
/// turning a failure into a ``ModelError`` that names the step, the command and the tail of its output.
enum ExternalTool {
    /// Runs `executable` (an absolute path, or a name looked up on `PATH`) with `arguments`; blocks until exit.
    static func run(_ executable: String, _ arguments: [String], step: String) throws(ModelError) {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        let command = ([executable] + arguments).joined(separator: " ")
        do { try process.run() } catch {
            throw ModelError(.toolFailed, "\(step): cannot run \(executable)", underlying: error)
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let tail = String(decoding: data, as: UTF8.self).split(separator: "\n").suffix(8).joined(separator: "\n")
            let missing = process.terminationStatus == 127 ? " (\(executable) is not installed or not on PATH)" : ""
            throw ModelError(
                .toolFailed,
                "\(step) failed: `\(command)` exited with status \(process.terminationStatus)\(missing)\n\(tail)")
        }
    }
}
