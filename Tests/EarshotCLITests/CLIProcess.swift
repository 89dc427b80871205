import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#endif

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

    /// The base URL a started `earshot serve` logged (`earshot listening … url=http://127.0.0.1:PORT`).
    func listeningURL(timeout: Duration = .seconds(90)) async throws -> String {
        let line = try await waitForLine(containing: "earshot listening", timeout: timeout)
        guard let url = line.split(separator: " ").first(where: { $0.hasPrefix("url=") })?.dropFirst(4) else {
            throw TimeoutError(what: "no url= in: \(line)")
        }
        return String(url)
    }

    /// Reads stderr until a line contains `marker`; returns that line. Never blocks past `timeout`: the pipe is
    /// read without blocking, so a child that stays silent fails the test instead of hanging it.
    func waitForLine(containing marker: String, timeout: Duration) async throws -> String {
        let descriptor = stderr.fileHandleForReading.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let deadline = ContinuousClock.now + timeout
        var buffer = ""
        var chunk = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let count = read(descriptor, &chunk, chunk.count)
            if count > 0 {
                buffer += String(decoding: chunk[..<count], as: UTF8.self)
                if let line = buffer.split(separator: "\n").first(where: { $0.contains(marker) }) {
                    return String(line)
                }
                continue
            }
            if count == 0 && !process.isRunning { break }  // end of file: the child exited
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TimeoutError(what: "no line containing '\(marker)' within \(timeout) in: \(buffer)")
    }
}

/// `earshot serve` on a free port with a partner created in its data directory, and that partner's token: the
/// start of every CLI test that talks to a server. Stop it with ``stop()`` (e.g. in a `defer`).
struct PartnerServer {
    let server: CLIProcess
    /// `http://127.0.0.1:PORT`.
    let base: String
    /// A partner access token.
    let token: String

    /// Creates partner `name` in `dataDirectory`, starts the server on it and fetches a partner token.
    static func start(partner name: String, dataDirectory: String) async throws -> PartnerServer {
        let created = try await CLIProcess.run(["partners", "create", name, "--json", "--data-dir", dataDirectory])
        guard
            let credentials = try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String]
        else { throw TimeoutError(what: "partner credentials in: \(created.stdout) \(created.stderr)") }
        // notice: the "earshot listening" line is logged at that level; quiet enough that the pipe never fills.
        let server = CLIProcess(["serve", "--port", "0", "--data-dir", dataDirectory, "--log-level", "notice"])
        try server.process.run()
        do {
            let base = try await server.listeningURL()
            var request = URLRequest(url: URL(string: base + "/open/partner/token")!)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: credentials)
            let (body, _) = try await URLSession.shared.data(for: request)
            guard
                let token = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["access_token"] as? String
            else { throw TimeoutError(what: "a partner token in: \(String(decoding: body, as: UTF8.self))") }
            return PartnerServer(server: server, base: base, token: token)
        } catch {
            server.process.terminate()
            throw error
        }
    }

    /// Stops the server (SIGTERM).
    func stop() {
        if server.process.isRunning { server.process.terminate() }
    }
}

struct TimeoutError: Error, CustomStringConvertible {
    let what: String
    var description: String { what }
}
