import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The seed's three parties as real processes on loopback: `earshot serve`, the example `partner-backend`, and
/// the test playing the app. Each test gets its own data directory, partner and ports.
struct PartnerStack: Sendable {
    /// The Earshot server (the app uploads here with its user token).
    let earshot: URL
    /// The partner backend (the app's only other counterpart).
    let backend: URL
    let clientID: String
    let clientSecret: String
    let directory: URL

    /// Demo sessions the backend accepts (`BACKEND_SESSIONS`).
    static let sessions = ["session-alice": "alice", "session-bob": "bob"]

    /// `.build/<config>/`, where the test bundle and both executables are.
    static var binaries: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    static func with(
        earshotArguments: [String] = [], backendEnvironment: [String: String] = [:],
        _ body: @Sendable (PartnerStack) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-e2e-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let created = try await Child.run(
            binaries.appendingPathComponent("earshot"),
            ["partners", "create", "Acme Notes", "--json", "--data-dir", directory.path])
        try #require(created.status == 0, "\(created.stderr)")
        let credentials = try #require(
            try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])
        let clientID = try #require(credentials["client_id"])
        let clientSecret = try #require(credentials["client_secret"])

        let serve = try Child(
            binaries.appendingPathComponent("earshot"),
            ["serve", "--port", "0", "--data-dir", directory.path] + earshotArguments)
        defer { serve.stop() }
        let earshot = try await serve.url(after: "earshot listening")

        var environment = [
            "EARSHOT_URL": earshot, "EARSHOT_CLIENT_ID": clientID, "EARSHOT_CLIENT_SECRET": clientSecret,
            "BACKEND_PORT": "0",
            "BACKEND_SESSIONS": sessions.map { "\($0.key)=\($0.value)" }.joined(separator: ","),
        ]
        environment.merge(backendEnvironment) { $1 }
        let partner = try Child(binaries.appendingPathComponent("partner-backend"), [], environment: environment)
        defer { partner.stop() }
        let backend = try await partner.url(after: "partner-backend listening")

        try await body(
            PartnerStack(
                earshot: URL(string: earshot)!, backend: URL(string: backend)!, clientID: clientID,
                clientSecret: clientSecret, directory: directory))
    }

    // MARK: The app's calls to its backend (seed 001's TokenClient and BackendClient, with URLSession)

    struct Answer: Sendable {
        let status: Int
        let data: Data
        var object: [String: Any] { (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:] }
        var errorCode: String? { (object["error"] as? [String: Any])?["code"] as? String }
    }

    func call(
        _ method: String, _ path: String, session: String? = "session-alice", json: [String: Any]? = nil,
        body: Data? = nil, headers: [String: String] = [:]
    ) async throws -> Answer {
        var request = URLRequest(url: URL(string: backend.absoluteString + path)!)
        request.httpMethod = method
        if let session { request.setValue("Bearer \(session)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        var payload = body
        if let json {
            payload = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) =
            if let payload {
                try await URLSession.shared.upload(for: request, from: payload)
            } else {
                try await URLSession.shared.data(for: request)
            }
        return Answer(status: (response as! HTTPURLResponse).statusCode, data: data)
    }

    /// `POST /token` as the app: the user token the backend obtained for the session's user.
    func userToken(session: String = "session-alice") async throws -> (token: String, expiresIn: Int) {
        let answer = try await call("POST", "/token", session: session, json: [:])
        try #require(answer.status == 200, "\(String(decoding: answer.data, as: UTF8.self))")
        return (try #require(answer.object["access_token"] as? String), answer.object["expires_in"] as? Int ?? 0)
    }
}

/// A child process with its stderr captured; stopped with SIGTERM (then SIGKILL) by ``stop()``.
final class Child: Sendable {
    private let process: Process
    private let stderr: Pipe
    let name: String

    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process = Process()
        stderr = Pipe()
        name = executable.lastPathComponent
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        try process.run()
    }

    /// Runs to completion (bounded) and returns exit status, stdout and stderr.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        timeout: Duration = .seconds(60)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment.isEmpty ? ProcessInfo.processInfo.environment : environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw StackError("\(executable.lastPathComponent) \(arguments) did not exit within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return (
            process.terminationStatus,
            String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }

    /// Reads stderr (without blocking) until a line contains `marker`, and returns its `url=` value.
    func url(after marker: String, timeout: Duration = .seconds(120)) async throws -> String {
        let descriptor = stderr.fileHandleForReading.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let deadline = ContinuousClock.now + timeout
        var buffer = ""
        var chunk = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let count = read(descriptor, &chunk, chunk.count)
            if count > 0 {
                buffer += String(decoding: chunk[..<count], as: UTF8.self)
                if let line = buffer.split(separator: "\n").first(where: { $0.contains(marker) }),
                    let url = line.split(separator: " ").first(where: { $0.hasPrefix("url=") })
                {
                    // Keep draining stderr so a chatty child never blocks on a full pipe.
                    stderr.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
                    return String(url.dropFirst(4))
                }
                continue
            }
            if count == 0 && !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw StackError("\(name) printed no line containing '\(marker)' within \(timeout): \(buffer)")
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

struct StackError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
