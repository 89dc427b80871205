import Foundation

/// The built `earshot` binary run as a child process, with its output collected.
struct CLIProcess {
    /// `.build/<config>/earshot`, next to the test bundle.
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("earshot")
    }

    let process = Process()
    let stdout = Pipe()
    let stderr = Pipe()

    init(_ arguments: [String], environment: [String: String] = [:]) {
        process.executableURL = Self.binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("EARSHOT_") }
        env.merge(environment) { $1 }
        process.environment = env
        process.standardOutput = stdout
        process.standardError = stderr
    }

    /// Runs to completion (bounded by `timeout`) and returns exit status, stdout and stderr.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(30)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = CLIProcess(arguments, environment: environment)
        try child.process.run()
        let out = child.stdout.fileHandleForReading.readDataToEndOfFile()
        let err = child.stderr.fileHandleForReading.readDataToEndOfFile()
        try await child.waitForExit(timeout: timeout)
        return (
            child.process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self)
        )
    }

    /// Waits for the child to exit; kills it and throws when it takes longer than `timeout`.
    func waitForExit(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                throw TimeoutError(what: "earshot \(process.arguments ?? []) did not exit")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Reads stderr line by line until a line contains `marker`; returns that line.
    func waitForLine(containing marker: String, timeout: Duration) async throws -> String {
        let handle = stderr.fileHandleForReading
        let deadline = ContinuousClock.now + timeout
        var buffer = ""
        while ContinuousClock.now < deadline {
            let chunk = handle.availableData
            if chunk.isEmpty {
                guard process.isRunning else { break }
                try await Task.sleep(for: .milliseconds(20))
                continue
            }
            buffer += String(decoding: chunk, as: UTF8.self)
            if let line = buffer.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) }
        }
        throw TimeoutError(what: "no line containing '\(marker)' in: \(buffer)")
    }
}

struct TimeoutError: Error, CustomStringConvertible {
    let what: String
    var description: String { what }
}
