import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `earshot serve` as a user runs it — the built binary in a child process on 127.0.0.1, port 0 — with a partner
/// created in its data directory by `earshot partners create`: the start of every test that talks to a real server
/// process (the CLI's client commands, the seed's partner backend and app). Stop it with ``stop()`` (e.g. in a
/// `defer`); name ``diagnostics`` in failure messages.
public struct ServeProcess: Sendable {
    /// The running server.
    public let child: ChildProcess
    /// `http://127.0.0.1:PORT`.
    public let base: String
    /// The partner's credentials.
    public let clientID: String
    public let clientSecret: String

    /// Creates partner `partner` in `dataDirectory`, then starts `earshot serve` on it with extra `arguments`.
    ///
    /// - Parameter logLevel: `notice` by default: start, stop and worker events but not a line per request, so the
    ///   stderr tail in a failure message says what happened.
    public static func start(
        partner: String = "Acme", dataDirectory: String, arguments: [String] = [],
        environment: [String: String] = [:], logLevel: String = "notice"
    ) async throws -> ServeProcess {
        let created = try await Program.earshot.run([
            "partners", "create", partner, "--json", "--data-dir", dataDirectory,
        ])
        guard created.status == 0,
            let credentials = try? JSONSerialization.jsonObject(with: created.stdoutData) as? [String: String],
            let clientID = credentials["client_id"], let clientSecret = credentials["client_secret"]
        else {
            throw ChildProcessError("no partner credentials in: \(created.stdout)", created)
        }
        let child = try Program.earshot.start(
            ["serve", "--port", "0", "--data-dir", dataDirectory, "--log-level", logLevel] + arguments,
            environment: environment)
        do {
            let base = try await child.listeningURL(after: "earshot listening")
            return ServeProcess(child: child, base: base, clientID: clientID, clientSecret: clientSecret)
        } catch {
            child.stop()
            throw error
        }
    }

    /// A partner access token (`POST /open/partner/token` with the partner's credentials).
    public func partnerToken() async throws -> String {
        var request = URLRequest(url: URL(string: base + "/open/partner/token")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: [
            "client_id": clientID, "client_secret": clientSecret,
        ])
        let (body, _) = try await URLSession.shared.data(for: request)
        guard let token = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["access_token"] as? String
        else {
            throw ChildProcessError(
                message: "no partner token in: \(String(decoding: body, as: UTF8.self))", command: child.command,
                stderrTail: child.stderrTail())
        }
        return token
    }

    /// The server's command, state and stderr tail, for failure messages.
    public var diagnostics: String { child.diagnostics }

    /// Stops the server (SIGTERM, then SIGKILL after 10 s).
    public func stop() { child.stop() }
}
