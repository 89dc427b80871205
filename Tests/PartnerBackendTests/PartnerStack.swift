import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
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

    static func with(
        earshotArguments: [String] = [], backendEnvironment: [String: String] = [:],
        _ body: @Sendable (PartnerStack) async throws -> Void
    ) async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("e2e")
        defer { try? FileManager.default.removeItem(at: directory) }

        // The backend's webhook endpoint listens on loopback, which webhooks may not reach unless allowed.
        let serve = try await ServeProcess.start(
            partner: "Acme Notes", dataDirectory: directory.path,
            arguments: ["--webhook-allow-networks", "127.0.0.0/8"] + earshotArguments)
        defer { serve.stop() }
        let (earshot, clientID, clientSecret) = (serve.base, serve.clientID, serve.clientSecret)

        var environment = [
            "EARSHOT_URL": earshot, "EARSHOT_CLIENT_ID": clientID, "EARSHOT_CLIENT_SECRET": clientSecret,
            "BACKEND_PORT": "0",
            "BACKEND_SESSIONS": sessions.map { "\($0.key)=\($0.value)" }.joined(separator: ","),
        ]
        environment.merge(backendEnvironment) { $1 }
        let partner = try Program.built("partner-backend").start(environment: environment)
        defer { partner.stop() }
        let backend = try await partner.listeningURL(after: "partner-backend listening")

        do {
            try await body(
                PartnerStack(
                    earshot: URL(string: earshot)!, backend: URL(string: backend)!, clientID: clientID,
                    clientSecret: clientSecret, directory: directory))
        } catch {
            // What the two servers said is often why the test failed.
            Issue.record("\(serve.diagnostics)\n\n\(partner.diagnostics)")
            throw error
        }
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
