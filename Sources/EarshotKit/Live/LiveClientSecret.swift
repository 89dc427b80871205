import EarshotAPI
public import Foundation

/// A short-lived credential for one live session (`ek_…`): what a backend hands a browser or an app instead of a
/// token. Good for `GET /v1/realtime` only, and only if used before ``expiresAt``; the session starts with the
/// settings it was minted with, and its record belongs to whoever minted it.
public struct LiveClientSecret: Sendable, Equatable {
    /// The secret (`ek_…`): pass it to ``LiveSession/connect(baseURL:clientSecret:settings:options:session:)``.
    public var value: String
    /// When it stops opening sessions (a session it opened runs on).
    public var expiresAt: Date
}

extension EarshotClient {
    /// `POST /v1/realtime/client_secrets`: mints a client secret for one live session with `settings` (with a
    /// partner token, or a user token with `records:write`).
    ///
    /// - Parameter expiresIn: its lifetime in seconds (10 up to the server's `live-secret-max-ttl`); nil for the
    ///   server's default (60 s).
    /// - Throws: ``EarshotError`` — `invalidArgument` naming a refused setting or lifetime, `unauthorized` (a client
    ///   secret cannot mint another), and the usual transport errors.
    public func mintLiveClientSecret(
        settings: LiveSession.Settings = LiveSession.Settings(), expiresIn: Int? = nil
    ) async throws -> LiveClientSecret {
        var body: [String: Any] = [:]
        if let session = LiveSession.update(settings, eventID: "")["session"] { body["session"] = session }
        if let expiresIn { body["expires_after"] = ["anchor": "created_at", "seconds": expiresIn] as [String: Any] }
        let request = APIRequest(
            method: "POST", path: APIPath.realtimeClientSecrets, body: try JSONSerialization.data(withJSONObject: body),
            contentType: "application/json", idempotent: false)
        let (data, response) = try await sendRaw(request)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let value = object["value"] as? String, let expires = JSONObject(object).double("expires_at")
        else {
            throw EarshotError(
                .invalidResponse, "cannot read the client secret from the answer", status: response.statusCode,
                requestID: response.value(forHTTPHeaderField: "X-Request-Id"))
        }
        return LiveClientSecret(value: value, expiresAt: Date(timeIntervalSince1970: expires))
    }
}
