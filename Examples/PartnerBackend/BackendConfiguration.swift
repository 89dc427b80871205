import Foundation

/// The backend's settings, all from its environment: secrets never come from the app.
///
/// | variable | meaning |
/// |---|---|
/// | `EARSHOT_URL` | the Earshot server's base URL (required) |
/// | `EARSHOT_CLIENT_ID`, `EARSHOT_CLIENT_SECRET` | your partner credentials from `earshot partners create` (required) |
/// | `BACKEND_HOST`, `BACKEND_PORT` | where this backend listens (default `127.0.0.1:3000`; port 0 = any free one) |
/// | `BACKEND_PUBLIC_URL` | how Earshot reaches this backend for webhooks (default `http://<host>:<port>`) |
/// | `BACKEND_SESSIONS` | demo app sessions, `session-token=user-id,…` (see ``AppSessions``) |
/// | `BACKEND_USER_TOKEN_TTL` | lifetime of the user tokens handed to the app, in seconds (default 3600) |
/// | `BACKEND_MODEL` | `asr-fast` (default) or `asr-pro` |
struct BackendConfiguration: Sendable {
    var earshotURL: URL
    var clientID: String
    var clientSecret: String
    var host = "127.0.0.1"
    var port = 3000
    var publicURL: String?
    var sessions: AppSessions
    var userTokenTTL = 3600
    var model = "asr-fast"
    /// How speakers are labelled in transcripts (seed 001's app shows "发言人 1 / 发言人 2"); `BACKEND_SPEAKER_LABEL`,
    /// empty for no speaker labelling.
    var speakerLabel: String? = "发言人 {n}"

    /// Reads the environment; throws one message listing every problem.
    static func load(_ environment: [String: String]) throws(ConfigurationProblem) -> BackendConfiguration {
        var problems: [String] = []
        func required(_ name: String, _ what: String) -> String {
            guard let value = environment[name], !value.isEmpty else {
                problems.append("\(name) is not set (\(what))")
                return ""
            }
            return value
        }
        let url = required("EARSHOT_URL", "the Earshot server's base URL, e.g. http://127.0.0.1:8080")
        let clientID = required("EARSHOT_CLIENT_ID", "from `earshot partners create NAME`")
        let clientSecret = required("EARSHOT_CLIENT_SECRET", "from `earshot partners create NAME`")
        let earshotURL = URL(string: url)
        if !url.isEmpty, earshotURL?.scheme == nil || earshotURL?.host == nil {
            problems.append("EARSHOT_URL '\(url)' is not an http(s) URL")
        }
        let sessions: AppSessions
        do {
            sessions = try AppSessions(parsing: environment["BACKEND_SESSIONS"] ?? "")
        } catch {
            problems.append("BACKEND_SESSIONS: \(error.message)")
            sessions = AppSessions()
        }
        var configuration = BackendConfiguration(
            earshotURL: earshotURL ?? URL(fileURLWithPath: "/"), clientID: clientID, clientSecret: clientSecret,
            sessions: sessions)
        if let host = environment["BACKEND_HOST"], !host.isEmpty { configuration.host = host }
        if let text = environment["BACKEND_PORT"] {
            if let port = Int(text), (0...65535).contains(port) {
                configuration.port = port
            } else {
                problems.append("BACKEND_PORT '\(text)' is not a port number (0-65535)")
            }
        }
        if let text = environment["BACKEND_USER_TOKEN_TTL"] {
            if let ttl = Int(text), ttl > 0 {
                configuration.userTokenTTL = ttl
            } else {
                problems.append("BACKEND_USER_TOKEN_TTL '\(text)' is not a positive number of seconds")
            }
        }
        if let model = environment["BACKEND_MODEL"] {
            if ["asr-fast", "asr-pro"].contains(model) {
                configuration.model = model
            } else {
                problems.append("BACKEND_MODEL '\(model)' is not asr-fast or asr-pro")
            }
        }
        if let label = environment["BACKEND_SPEAKER_LABEL"] {
            if label.isEmpty {
                configuration.speakerLabel = nil
            } else if label.contains("{n}") {
                configuration.speakerLabel = label
            } else {
                problems.append("BACKEND_SPEAKER_LABEL '\(label)' needs {n} where the speaker's number goes")
            }
        }
        if let publicURL = environment["BACKEND_PUBLIC_URL"], !publicURL.isEmpty {
            configuration.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        }
        guard problems.isEmpty else { throw ConfigurationProblem(message: problems.joined(separator: "\n")) }
        return configuration
    }
}

/// Why the backend cannot start.
struct ConfigurationProblem: Error {
    let message: String
}
