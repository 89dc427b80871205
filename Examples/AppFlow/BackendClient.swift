import EarshotAPI
import EarshotKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's calls to its own backend (seed 001's `TokenClient` and `BackendClient`), authenticated with the
/// app's session. Failures are `EarshotError`s carrying the backend's status and code, like the SDK's own.
struct BackendClient: Sendable {
    let baseURL: URL
    /// The app's own sign-in, sent as `Authorization: Bearer <session>`; Earshot never sees it.
    let session: String

    /// `POST /token`: a short-lived Earshot user token for the signed-in user. Used as EarshotKit's token
    /// provider, so an expired token is fetched again once.
    func userToken() async throws -> String {
        let token: TokenResponse = try await call("POST", "/token", body: [:])
        return token.accessToken
    }

    /// `POST /recordings/complete`: the backend submits the transcription with its partner credentials.
    func reportComplete(downloadURL: String) async throws -> String {
        struct Created: Decodable {
            var transcriptionID: String
            enum CodingKeys: String, CodingKey { case transcriptionID = "transcription_id" }
        }
        let created: Created = try await call("POST", "/recordings/complete", body: ["file_url": downloadURL])
        return created.transcriptionID
    }

    /// Polls `GET /recordings/{id}/transcript` with growing pauses until the task is final; returns its segments.
    ///
    /// - Throws: `EarshotError` `.taskFailed` / `.taskRevoked`, or `.unavailable` after `policy.timeout`.
    func waitForTranscript(
        _ id: String, policy: PollPolicy = PollPolicy(initialInterval: 0.5, timeout: 900)
    ) async throws -> [TranscriptSegment] {
        struct Transcript: Decodable {
            var status: TaskStatus
            var segments: [TranscriptSegment]?
            var error: String?
        }
        let transcript = try await policy.wait(
            for: "transcription \(id)", status: { (transcript: Transcript) in transcript.status }, failure: \.error
        ) { try await call("GET", "/recordings/\(id)/transcript") }
        return transcript.segments ?? []
    }

    private func call<Answer: Decodable>(
        _ method: String, _ path: String, body: [String: String]? = nil
    ) async throws -> Answer {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("Bearer \(session)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = try JSONEncoder().encode(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw EarshotError(.network, "\(method) \(request.url!) failed", underlying: error)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            // The backend answers errors in Earshot's shape: {"error": {"code", "message", "request_id"}}.
            guard let answer = try? JSONDecoder().decode(ErrorResponse.self, from: data) else {
                throw EarshotError(
                    .init(status: status), "\(method) \(path): \(String(decoding: data, as: UTF8.self))",
                    status: status)
            }
            throw EarshotError(
                .init(wire: answer.error.code), answer.error.message, status: status,
                requestID: answer.error.requestID, wireCode: answer.error.code.rawValue)
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw EarshotError(
                .invalidResponse, "\(method) \(path): unexpected answer", status: status, underlying: error)
        }
    }
}
