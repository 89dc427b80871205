import EarshotAPI
import EarshotCore
import EarshotHTTP
import EarshotLive
import EarshotModels
import EarshotSpeech
import Foundation
import Synchronization

/// `GET /v1/realtime` upgraded to WebSocket: OpenAI-Realtime-compatible transcription sessions
/// (``RealtimeTranscriptionSession``; [live.md](../../../docs/live.md)).
///
/// The caller is a partner token, a user token with `records:write`, or a client secret (`ek_…`,
/// ``ClientSecretRoutes``: the session then starts with the settings it was minted with), sent as
/// `Authorization: Bearer …` or — as browsers must, since they cannot set headers on a WebSocket — in the subprotocol
/// list as `openai-insecure-api-key.<token>` next to `realtime` (the server then answers with `realtime`). A refused
/// credential is an ordinary 401/403 before the upgrade. `intent=transcription` selects the beta event names
/// (`transcription_session.*`); without it the GA names (`session.*`) are used. `intent=dialogue` opens a
/// face-to-face dialogue (GA names; two channels, translations spoken through ``LiveVoice``; see
/// docs/decisions/0013-dialogue-wire.md).
///
/// A session becomes a record of the caller when it ends (`source: "live"`: the audio as received, one transcript
/// segment per completed item), unless the client asks `store=false`; the record id is known up-front and told in the
/// `Earshot-Record-Id` header of the upgrade and as `record_id` in the `created` event (see
/// docs/decisions/0012-live-session-records.md).
///
/// At most ``maxSessions`` sessions run at once; one more is upgraded, told `RATE_LIMITED` in an `error` event and
/// closed with 1013 (browsers cannot read a refused handshake's status). Decodes go through the server's one speech
/// engine under ``DecodeAdmission``, shared with `/v1/audio/*`.
struct RealtimeRoutes: Sendable {
    let engines: FileTranscriber
    let admission: DecodeAdmission
    /// Serves `translate_to` (simultaneous interpretation).
    let interpreter: LiveInterpreter
    /// Speaks a dialogue's translations.
    let voice: LiveVoice
    let tokens: TokenService
    let sessions: LiveSessionCount
    let voiceActivityModel: String
    /// Where finished sessions become records.
    let records: RecordsService
    /// Where a kept session's audio is spooled while it runs.
    let spoolDirectory: String
    private let logger = Logger(label: "live")

    /// WebSocket limits of a realtime connection: appends of up to about 60 s of 24 kHz audio each.
    static let socketConfiguration = WebSocket.Configuration(
        maxFramePayload: 4 << 20, maxMessageSize: 4 << 20, maxInboundBuffer: 16 << 20, maxSendQueue: 1 << 20)

    func register(on router: RouteGroup) {
        router.get(APIPath.realtime) { request, _ in
            try await accept(request)
        }
    }

    private func accept(_ request: Request) async throws -> Response {
        let offered = request.webSocketSubprotocols
        let credential: String
        if request.headers["Authorization"] != nil {
            credential = try TokenService.bearer(request)
        } else if let key = offered.first(where: { $0.hasPrefix(Self.keyPrefix) }) {
            credential = String(key.dropFirst(Self.keyPrefix.count))
        } else {
            throw PlatformError.unauthorized(
                "send 'Authorization: Bearer <token>', or from a browser the subprotocol "
                    + "'openai-insecure-api-key.<token or client secret>' next to 'realtime'")
        }
        // A client secret was minted by a caller with records:write, and carries the session settings given then.
        let (caller, minted) = try await tokens.authenticateLive(credential)
        if !credential.hasPrefix(TokenService.clientSecretPrefix) { try caller.require(.recordsWrite) }
        let store = try Self.store(request.query["store"])
        var configuration = RealtimeTranscriptionSession.Configuration()
        let intent = request.query["intent"]
        switch intent {
        case nil, "transcription", "dialogue": break
        default:
            throw PlatformError.invalidArgument(
                "intent \"\(intent!.prefix(32))\" is unknown; use transcription, dialogue, or leave it out")
        }
        configuration.dialect = intent == "transcription" ? .beta : .ga
        configuration.dialogue = intent == "dialogue"
        configuration.initialSession = minted.flatMap { JSONValue(parsing: $0) }
        configuration.recordID = store ? Identifier.make(prefix: "rec") : nil
        let sessionConfiguration = configuration
        let recognizer = EngineRecognizer(engines: engines, admission: admission)
        let interpreter = self.interpreter
        let voice = self.voice
        let sessions = self.sessions
        let modelPath = voiceActivityModel
        let (records, spool, logger) = (self.records, spoolDirectory, logger)
        var response = try Response.webSocket(
            for: request, subprotocol: offered.contains("realtime") ? "realtime" : nil,
            configuration: Self.socketConfiguration
        ) { socket in
            guard sessions.enter() else {
                var error = RealtimeError(
                    type: "rate_limit_error", code: "RATE_LIMITED",
                    message: "\(sessions.limit) live sessions are running, the most this server takes; retry later")
                error.param = nil
                try? await socket.send(text: RealtimeTranscriptionSession.errorEvent(error))
                socket.close(.tryAgainLater, reason: "too many live sessions")
                return
            }
            defer { sessions.leave() }
            let detector = try VoiceActivityStream(modelPath: modelPath)
            let recording = sessionConfiguration.recordID.map {
                LiveRecording(directory: spool, recordID: $0, startedAt: records.now())
            }
            let session = RealtimeTranscriptionSession(
                recognizer: recognizer, detector: detector, configuration: sessionConfiguration, recorder: recording,
                translator: interpreter, speaker: voice)
            let messages = socket.messages.map { message -> RealtimeTranscriptionSession.Incoming in
                switch message {
                case .text(let text): .text(text)
                case .binary(let bytes): .binary(bytes.count)
                }
            }
            await session.run(messages) { text in try await socket.send(text: text) }
            if let recording { await Self.keep(recording, for: caller, records: records, logger: logger) }
        }
        if let record = sessionConfiguration.recordID { response.headers["Earshot-Record-Id"] = record }
        return response
    }

    /// `store`: whether the session becomes a record (the default), or not (`store=false`).
    static func store(_ value: String?) throws -> Bool {
        switch value?.lowercased() {
        case nil, "true", "1": return true
        case "false", "0": return false
        default:
            throw PlatformError.invalidArgument(
                "store must be true or false (got \"\(value!.prefix(16))\"); store=false keeps no record of the "
                    + "session")
        }
    }

    /// Makes the ended session a record, once its last decode is done; a session without audio makes none. A
    /// failure is logged (the client has gone) and the spool file removed.
    private static func keep(
        _ recording: LiveRecording, for caller: Principal, records: RecordsService, logger: Logger
    ) async {
        do {
            guard let recorded = try recording.finish() else { return }
            defer { try? FileManager.default.removeItem(at: recorded.file) }
            _ = try await records.keepLive(
                recorded, id: recording.recordID, startedAt: recording.startedAt, for: caller)
        } catch {
            logger.error(
                "a live session could not be kept as a record",
                metadata: ["record": recording.recordID, "error": "\(error)"])
        }
    }

    static let keyPrefix = "openai-insecure-api-key."
}

/// How many live sessions run, against `live-max-sessions`.
final class LiveSessionCount: Sendable {
    let limit: Int
    private let running = Mutex(0)

    init(limit: Int) {
        self.limit = limit
    }

    func enter() -> Bool {
        running.withLock { running in
            guard running < limit else { return false }
            running += 1
            return true
        }
    }

    func leave() {
        running.withLock { $0 -= 1 }
    }

    var count: Int { running.withLock { $0 } }
}

/// Live decodes through the server's shared engine, under the same admission as `/v1/audio/*`.
struct EngineRecognizer: LiveRecognizer {
    let engines: FileTranscriber
    let admission: DecodeAdmission

    /// OpenAI's realtime transcription models map to `asr-fast` (the live tier); Earshot's names pass through.
    static func tier(_ model: String?) -> String? {
        guard let model else { return "asr-fast" }
        if model.hasPrefix("gpt-4o") || model.hasPrefix("gpt-realtime") { return "asr-fast" }
        return ModelTier.named(model)?.name
    }

    func validate(_ settings: TranscriptionSettings) async throws {
        guard Self.tier(settings.model) != nil else {
            throw PlatformError.invalidArgument(ModelTier.notOfferedMessage(settings.model ?? ""))
        }
        if let language = settings.language, !SpeechModel.isKnownLanguage(language.lowercased()) {
            throw PlatformError.invalidArgument("language \"\(language.prefix(16))\" is unknown; use an ISO-639-1 code")
        }
    }

    func transcribe(_ samples: [Float], settings: TranscriptionSettings, as decode: LiveDecode) async throws
        -> Recognition?
    {
        guard let tier = Self.tier(settings.model) else { return nil }
        let (engine, resolved, _) = try await engines.engine(for: tier)
        // A final decode gives the words' times too (the `completed` event's `words`, the record's segments).
        let tierOptions = resolved.live(settings, decode)
        if decode.onlyWhenIdle {
            // A preview or work ahead: only when the engine is idle right now, never queued behind or running beside
            // other decodes.
            guard let start = await admission.enterIfIdle() else { return nil }
            do {
                let transcript = try await engine.transcript(of: samples, options: tierOptions)
                await admission.leave(since: start)
                return Recognition(transcript)
            } catch {
                await admission.leave(since: start)
                throw error
            }
        }
        let transcript = try await admission.run { try await engine.transcript(of: samples, options: tierOptions) }
        return Recognition(transcript)
    }
}
