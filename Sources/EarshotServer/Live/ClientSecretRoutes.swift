import EarshotAPI
import EarshotHTTP
import EarshotLive
import Foundation

/// Client secrets for browsers and apps, the OpenAI-compatible way: `POST /v1/realtime/transcription_sessions`
/// (beta: the body is the session's settings; the answer is the session with `client_secret: {value, expires_at}`)
/// and `POST /v1/realtime/client_secrets` (GA: `{expires_after?, session?}` → `{value, expires_at, session}`).
///
/// A partner token, or a user token with `records:write`, mints; the secret (`ek_…`, a token of kind
/// `client_secret`: ``TokenService/clientSecret(for:session:ttlSeconds:)``) acts for the same tenant and user, lives
/// ``Limits/ttl`` (or `expires_after.seconds`, up to ``Limits/maxTTL``), opens only `GET /v1/realtime` (as a Bearer
/// or in the `openai-insecure-api-key.` subprotocol; 401 on any other route), and the session it opens starts with
/// the settings given here, checked now exactly as a `session.update` would be.
struct ClientSecretRoutes: Sendable {
    /// How long secrets live.
    struct Limits: Sendable {
        /// When the request names no lifetime (`live-secret-ttl`).
        var ttl: Duration = .seconds(60)
        /// The longest `expires_after.seconds` taken (`live-secret-max-ttl`).
        var maxTTL: Duration = .seconds(600)
    }

    let tokens: TokenService
    let recognizer: EngineRecognizer
    /// Checks `translate_to` in the minted settings.
    let interpreter: LiveInterpreter
    let limits: Limits

    /// The largest settings object a secret carries (its prompt, mostly): the secret travels in a header.
    static let maxSessionBytes = 4096
    /// The largest request body.
    static let maxBody = 64 << 10
    /// The routes: at the root for OpenAI clients and, when there is an `api-prefix`, under it too for the console's
    /// session cookie, which is scoped to the prefix (the served OpenAPI document lists both).
    static let paths = [APIPath.realtimeTranscriptionSessions, APIPath.realtimeClientSecrets]

    func register(on api: APIRoutes) {
        api.post(
            APIPath.realtimeTranscriptionSessions, .partnerOrUser(.recordsWrite), body: .buffered(limit: Self.maxBody)
        ) { request, _, caller in
            var settings = try Self.body(request)
            let options = settings["client_secret"]
            if let options {
                guard case .object = options else {
                    throw PlatformError.invalidArgument("client_secret must be an object: {\"expires_after\": {…}}")
                }
            }
            let lifetime = try lifetime(options?["expires_after"] ?? options?["expires_at"])
            if case .object(var fields) = settings {
                fields["client_secret"] = nil
                settings = .object(fields)
            }
            let (secret, session) = try await mint(settings, dialect: .beta, ttl: lifetime, for: caller)
            var answer: [String: JSONValue] = [:]
            if case .object(let fields) = session { answer = fields }
            answer["client_secret"] = ["value": .string(secret.value), "expires_at": .number(Double(secret.expiresAt))]
            return Self.json(.object(answer))
        }
        api.post(APIPath.realtimeClientSecrets, .partnerOrUser(.recordsWrite), body: .buffered(limit: Self.maxBody)) {
            request, _, caller in
            let body = try Self.body(request)
            let lifetime = try lifetime(body["expires_after"])
            let settings = body["session"] ?? [:]
            guard case .object = settings else {
                throw PlatformError.invalidArgument("session must be an object (the transcription session's settings)")
            }
            if let type = settings["type"], type.string != "transcription" {
                throw PlatformError.invalidArgument(
                    "session.type \(type.text.prefix(40)) is not served: Earshot's live endpoint runs transcription "
                        + "sessions; send \"type\": \"transcription\"")
            }
            let (secret, session) = try await mint(settings, dialect: .ga, ttl: lifetime, for: caller)
            return Self.json([
                "value": .string(secret.value), "expires_at": .number(Double(secret.expiresAt)), "session": session,
            ])
        }
    }

    /// Checks `settings` as a session would, then signs a secret carrying them.
    private func mint(
        _ settings: JSONValue, dialect: RealtimeTranscriptionSession.Configuration.Dialect, ttl: Int,
        for caller: Principal
    ) async throws -> (secret: (value: String, expiresAt: Int64), session: JSONValue) {
        let session: JSONValue
        do {
            session = try await RealtimeTranscriptionSession.settings(
                of: settings, dialect: dialect, recognizer: recognizer, translator: interpreter)
        } catch let error as RealtimeError {
            throw PlatformError.invalidArgument(
                error.param.map { "\($0): \(error.message)" } ?? error.message)
        }
        let text = settings.text
        guard text.utf8.count <= Self.maxSessionBytes else {
            throw PlatformError.invalidArgument(
                "the session settings take \(text.utf8.count) bytes; a client secret carries at most "
                    + "\(Self.maxSessionBytes) (shorten the prompt)")
        }
        let secret = try await tokens.clientSecret(
            for: caller, session: text == "{}" ? nil : text, ttlSeconds: ttl)
        return (secret, session)
    }

    /// The lifetime asked for (`{"anchor": "created_at", "seconds": N}`), else the default.
    private func lifetime(_ expiry: JSONValue?) throws -> Int {
        let maxSeconds = Int(limits.maxTTL.components.seconds)
        guard let expiry else { return min(Int(limits.ttl.components.seconds), maxSeconds) }
        guard case .object = expiry else {
            throw PlatformError.invalidArgument("expires_after must be {\"anchor\": \"created_at\", \"seconds\": N}")
        }
        if let anchor = expiry["anchor"], anchor.string != "created_at" {
            throw PlatformError.invalidArgument("expires_after.anchor must be \"created_at\"")
        }
        guard let seconds = expiry["seconds"]?.number, seconds == seconds.rounded(),
            (10...Double(maxSeconds)).contains(seconds)
        else {
            throw PlatformError.invalidArgument(
                "expires_after.seconds must be a whole number of seconds within 10…\(maxSeconds)")
        }
        return Int(seconds)
    }

    /// The JSON object of the body; `{}` when there is none.
    private static func body(_ request: Request) throws -> JSONValue {
        guard case .bytes(let bytes) = request.body, !bytes.isEmpty else { return [:] }
        guard let value = JSONValue(parsing: String(decoding: bytes, as: UTF8.self)), case .object = value else {
            throw PlatformError.invalidArgument("the body must be a JSON object")
        }
        return value
    }

    private static func json(_ value: JSONValue) -> Response {
        Response(
            status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: .bytes(Array(value.text.utf8)))
    }
}
