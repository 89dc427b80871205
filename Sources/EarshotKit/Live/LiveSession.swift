import EarshotAPI
public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A live transcription session (`GET /v1/realtime`, docs/live.md): send PCM16 audio as it is recorded, read
/// partial and final text (and translations) as ``events``. When it ends the server keeps it as a record.
///
/// ```swift
/// let session = try await LiveSession.connect(client: client, settings: .init(language: "en"))
/// Task {
///     for await event in session.events {
///         if case .transcriptionCompleted(_, let text) = event.kind { print(text) }
///     }
/// }
/// try await session.append(audio: chunk)          // 24 kHz mono little-endian, any size, as often as you like
/// await session.finish()                          // last finals, then close; session.recordID is the record
/// ```
///
/// Credentials: the client's token (a partner token, or a user token with `records:write`; refreshed once through
/// its ``TokenProvider`` when the server answers 401), or a short-lived client secret (`ek_…`, minted by your backend
/// with ``EarshotClient/mintLiveClientSecret(settings:expiresIn:)``) through
/// ``connect(baseURL:clientSecret:settings:options:)``.
///
/// Transport: `URLSessionWebSocketTask` on Apple platforms; on Linux, where Foundation cannot open WebSockets, a
/// small RFC 6455 client of EarshotKit's own over a TCP socket, which has no TLS: `wss://` URLs are refused there
/// with ``EarshotError/Code/invalidArgument``.
///
/// Thread-safety: share it across tasks; sends are serialised. ``events`` is for one consumer and buffers what it
/// has not read yet. Cancellation: cancelling a task waiting in ``finish(timeout:)`` stops the wait and closes.
public final class LiveSession: Sendable {
    /// What the session transcribes and how turns end; sent as a `session.update` when connecting.
    public struct Settings: Sendable, Equatable {
        /// `asr-fast` (the server's default when nil), `asr-pro`, `whisper-1`, `gpt-4o-transcribe`, …
        public var model: String?
        /// The spoken language (ISO 639-1), or nil to detect it.
        public var language: String?
        /// Words and names to expect.
        public var prompt: String?
        /// Interpret: each final item is also translated into this language (ISO 639-1).
        public var translateTo: String?
        /// Server VAD (turns end at a pause; the default) or nil for manual ``LiveSession/commit()``.
        public var serverVAD: ServerVAD?
        /// What you append: PCM16 at 24000 Hz (the default, OpenAI's) or 16000, G.711, or an Ogg Opus stream.
        public var inputFormat: AudioFormat
        /// A face-to-face dialogue instead of a transcription: the two sides (channel 0, then 1), each with its
        /// language (which replaces ``language``; leave ``translateTo`` nil). Each utterance is translated into the
        /// other side's language and spoken to it when it listens. Append with ``LiveSession/append(audio:channel:)``.
        public var dialogue: [DialogueChannel]?
        /// A dialogue's spoken translations: PCM16 at 24000 Hz (the default) or 16000, G.711, or Ogg Opus (each
        /// response's ``LiveEvent/Kind/audioDelta(itemID:channel:audio:)`` chunks joined are one `.opus` stream).
        public var outputFormat: AudioFormat
        /// Ask for ``LiveEvent/Kind/transcriptionInterim(itemID:text:)`` events: the newest reading of the words
        /// not yet stable, about a second after they are spoken, to show after an item's deltas until replaced.
        public var interim: Bool
        /// Earshot's `final_window_ms`: each final decode hears the item after the same side's previous items, up to
        /// this many milliseconds together (at most 25000), closer to how the offline pass hears it, for about 0.4 s
        /// more per final; 0 decodes each item alone. Nil leaves the server's default (25000 on an Earshot server).
        public var finalWindowMs: Int?

        public init(
            model: String? = nil, language: String? = nil, prompt: String? = nil, translateTo: String? = nil,
            serverVAD: ServerVAD? = ServerVAD(), inputFormat: AudioFormat = .pcm16(sampleRate: 24_000),
            dialogue: [DialogueChannel]? = nil, outputFormat: AudioFormat = .pcm16(sampleRate: 24_000),
            interim: Bool = false, finalWindowMs: Int? = nil
        ) {
            self.model = model
            self.language = language
            self.prompt = prompt
            self.translateTo = translateTo
            self.serverVAD = serverVAD
            self.inputFormat = inputFormat
            self.dialogue = dialogue
            self.outputFormat = outputFormat
            self.interim = interim
            self.finalWindowMs = finalWindowMs
        }
    }

    /// One side of a face-to-face dialogue (seed 000's `f2fChannel`).
    /// An audio format on the session's wire (docs/live.md, "Audio formats").
    public enum AudioFormat: Sendable, Equatable {
        /// PCM16 little-endian mono at 24000 or 16000 Hz.
        case pcm16(sampleRate: Int)
        /// G.711 μ-law at 8000 Hz, a byte a sample.
        case g711MuLaw
        /// G.711 A-law at 8000 Hz.
        case g711ALaw
        /// One Ogg Opus stream, sent in pieces of any size (the appends joined are an `.opus` file); the server
        /// decodes it to `sampleRate` (input: 16000 by default) or encodes at it (output: 24000).
        case oggOpus(sampleRate: Int)

        /// The sample rate of the PCM behind the format, in Hz.
        public var sampleRate: Int {
            switch self {
            case .pcm16(let rate), .oggOpus(let rate): rate
            case .g711MuLaw, .g711ALaw: 8_000
            }
        }

        /// The GA `format` object.
        var json: [String: Any] {
            switch self {
            case .pcm16(let rate): ["type": "audio/pcm", "rate": rate]
            case .g711MuLaw: ["type": "audio/pcmu"]
            case .g711ALaw: ["type": "audio/pcma"]
            case .oggOpus(let rate): ["type": "audio/opus", "rate": rate]
            }
        }
    }

    public struct DialogueChannel: Sendable, Equatable {
        /// What this side speaks (ISO 639-1): its utterances are decoded in it, the other side's translated into it.
        public var language: String
        /// The voice that speaks translations to this side (OpenAI's names: `alloy`, `nova`, …).
        public var voice: String
        /// Speak translations to this side (false: text only).
        public var speak: Bool

        public init(language: String, voice: String = "alloy", speak: Bool = true) {
            self.language = language
            self.voice = voice
            self.speak = speak
        }
    }

    /// Server VAD's knobs (OpenAI's defaults).
    public struct ServerVAD: Sendable, Equatable {
        /// Speech probability above which audio counts as speech (0…1).
        public var threshold: Double
        /// Audio kept before the detected start of speech, in ms.
        public var prefixPaddingMs: Int
        /// Silence that ends a turn, in ms.
        public var silenceDurationMs: Int

        public init(threshold: Double = 0.5, prefixPaddingMs: Int = 300, silenceDurationMs: Int = 500) {
            self.threshold = threshold
            self.prefixPaddingMs = prefixPaddingMs
            self.silenceDurationMs = silenceDurationMs
        }
    }

    /// Connection options.
    public struct Options: Sendable {
        /// Keep the session as a record when it ends (`store=false` opts out).
        public var store: Bool
        /// How long ``LiveSession/connect(client:settings:options:)`` waits for the session to be ready, in seconds.
        public var connectTimeout: TimeInterval
        /// The largest server message accepted (bytes).
        public var maxMessageSize: Int
        /// Audio per `input_audio_buffer.append` message at most (bytes of PCM16; bigger appends are split).
        public var maxAppendBytes: Int

        public init(
            store: Bool = true, connectTimeout: TimeInterval = 30, maxMessageSize: Int = 16 << 20,
            maxAppendBytes: Int = 256 << 10
        ) {
            self.store = store
            self.connectTimeout = connectTimeout
            self.maxMessageSize = maxMessageSize
            self.maxAppendBytes = maxAppendBytes
        }
    }

    /// Everything the server sends, typed, in order, ending with ``LiveEvent/Kind/closed(code:reason:)``. The
    /// `created` (with the record id) and `updated` events of connecting are its first elements.
    public let events: AsyncStream<LiveEvent>
    private let continuation: AsyncStream<LiveEvent>.Continuation
    private let state: Locked<SessionState>
    private let transport: Locked<(any LiveTransport)?>
    private let options: Options

    struct SessionState: Sendable {
        var info: LiveSessionInfo?
        var recordID: String?
        var startupError: LiveError?
        var updateEventID: String?
        var updated = false
        var closed: (code: Int, reason: String, failure: EarshotError?)?
        var committed: [String] = []
        var finals: Set<String> = []
        var completed: [String] = []
        var translated: Set<String> = []
        /// A dialogue: items whose translation is being spoken (the `done`/`failed` audio event not yet in).
        var speechDue: Set<String> = []
        /// A dialogue's sides as sent (whose `speak` says which translations will be spoken).
        var dialogue: [DialogueChannel]?
        var speaking = false
        /// Audio appended since the last `commit()` or `clear()` was sent (manual mode: what `finish` commits).
        var bytesSinceCommit = 0
        /// Client events sent and not yet answered (event id → `commit`, `clear` or `update`): `finish` waits for
        /// their answers, which the server drops once the client closes.
        var awaiting: [String: String] = [:]

        /// One client event of `kind` got its answer.
        mutating func answered(_ kind: String) {
            if let eventID = awaiting.first(where: { $0.value == kind })?.key { awaiting[eventID] = nil }
        }

        /// Every committed item has its final (and its translation, when interpreting), and no commit is in flight.
        var settled: Bool {
            guard awaiting.isEmpty, committed.allSatisfy(finals.contains) else { return false }
            guard info?.translateTo != nil || dialogue != nil else { return true }
            return completed.allSatisfy(translated.contains) && speechDue.isEmpty
        }
    }

    private init(options: Options) {
        (events, continuation) = AsyncStream.makeStream(of: LiveEvent.self)
        state = Locked(SessionState())
        transport = Locked(nil)
        self.options = options
    }

    /// A session released without ``finish(timeout:)`` or ``close()`` drops its connection (the server still makes
    /// the record of what was committed).
    deinit {
        transport.withLock { $0 }?.abort()
    }

    // MARK: Connecting

    /// Opens a session with the client's token and applies `settings`.
    ///
    /// Returns once the server accepted the settings (``recordID`` is then known).
    /// - Parameter settings: what to transcribe; nil keeps the server's defaults.
    /// - Throws: ``EarshotError``: `unauthorized` (401, after one refresh through the token provider) or
    ///   `forbidden` for a refused credential, `rateLimited` when the server runs as many sessions as it allows,
    ///   `invalidArgument` with the server's message when it refused a setting, `network` when it cannot be reached
    ///   or the connection ended, `unavailable` after ``Options/connectTimeout``.
    public static func connect(
        client: EarshotClient, settings: Settings? = Settings(), options: Options = Options()
    ) async throws -> LiveSession {
        let token: String?
        do {
            token = try await client.tokens.token()
        } catch {
            throw EarshotError(
                .unauthorized, "the token provider could not supply a token: \(error)", underlying: error)
        }
        do {
            return try await open(
                baseURL: client.configuration.baseURL, token: token, settings: settings, options: options,
                session: client.configuration.session)
        } catch let error as EarshotError where error.code == .unauthorized && error.status == 401 {
            guard await client.tokens.hasProvider else { throw error }
            let fresh = try await client.tokens.refresh(replacing: token)
            return try await open(
                baseURL: client.configuration.baseURL, token: fresh, settings: settings, options: options,
                session: client.configuration.session)
        }
    }

    /// Opens a session with a client secret (`ek_…`) minted by your backend; it starts with the settings the
    /// secret was minted with, which `settings` (when not nil) replaces.
    ///
    /// - Throws: as ``connect(client:settings:options:)``; an expired or forged secret is `unauthorized`.
    public static func connect(
        baseURL: URL, clientSecret: String, settings: Settings? = nil, options: Options = Options(),
        session: URLSession = .shared
    ) async throws -> LiveSession {
        try await open(baseURL: baseURL, token: clientSecret, settings: settings, options: options, session: session)
    }

    private static func open(
        baseURL: URL, token: String?, settings: Settings?, options: Options, session urlSession: URLSession
    ) async throws -> LiveSession {
        let url = try realtimeURL(baseURL, store: options.store, dialogue: settings?.dialogue != nil)
        let session = LiveSession(options: options)
        session.state.withLock { $0.dialogue = settings?.dialogue }
        var headers: [String: String] = [:]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let transport = try await LiveTransports.open(
            url, headers: headers, maxMessageSize: options.maxMessageSize, session: urlSession
        ) { [weak session] event in
            session?.receive(event)
        }
        session.transport.withLock { $0 = transport }
        do {
            try await session.start(settings)
        } catch {
            await session.close()
            throw error
        }
        return session
    }

    static func realtimeURL(_ baseURL: URL, store: Bool, dialogue: Bool = false) throws -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard var components = URLComponents(string: base + APIPath.realtime) else {
            throw EarshotError(.invalidArgument, "cannot form the live URL from \(baseURL.absoluteString)")
        }
        switch components.scheme {
        case "http", "ws": components.scheme = "ws"
        case "https", "wss": components.scheme = "wss"
        default: throw EarshotError(.invalidArgument, "the server URL must be http(s): \(baseURL.absoluteString)")
        }
        var query: [URLQueryItem] = []
        if dialogue { query.append(URLQueryItem(name: "intent", value: "dialogue")) }
        if !store { query.append(URLQueryItem(name: "store", value: "false")) }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else {
            throw EarshotError(.invalidArgument, "cannot form the live URL from \(baseURL.absoluteString)")
        }
        return url
    }

    /// Waits for `created`, sends the settings and waits for `updated` (or the refusal).
    private func start(_ settings: Settings?) async throws {
        let deadline = Date().addingTimeInterval(options.connectTimeout)
        if let settings {
            try await waitUntil(deadline, "the session's created event") { $0.info != nil }
            let eventID = "evt_settings_\(UUID().uuidString.prefix(8))"
            state.withLock { $0.updateEventID = eventID }
            try await send(Self.update(settings, eventID: eventID))
            try await waitUntil(deadline, "the answer to the session's settings") { $0.updated }
        } else {
            try await waitUntil(deadline, "the session's created event") { $0.info != nil }
        }
    }

    /// Polls the state until `condition`, the session's refusal or its end.
    private func waitUntil(_ deadline: Date, _ what: String, _ condition: (SessionState) -> Bool) async throws {
        while true {
            let (done, refused, closed) = state.withLock { state in (condition(state), state.startupError, state.closed)
            }
            if let refused {
                let code: EarshotError.Code = refused.code == "RATE_LIMITED" ? .rateLimited : .invalidArgument
                throw EarshotError(
                    code,
                    "the server refused the live session: \(refused.message)"
                        + (refused.param.map { " (\($0))" } ?? ""), wireCode: refused.code)
            }
            if done { return }
            if let closed {
                throw closed.failure
                    ?? EarshotError(
                        .network, "the live session closed before it started (\(closed.code) \(closed.reason))")
            }
            guard Date() < deadline else { throw EarshotError(.unavailable, "no \(what) within the connect timeout") }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    // MARK: State

    /// The record the session becomes when it ends (from the `created` event); nil with `store: false`.
    public var recordID: String? { state.withLock { $0.recordID } }

    /// The session's settings as the server last reported them.
    public var info: LiveSessionInfo? { state.withLock { $0.info } }

    /// Whether the connection has ended.
    public var isClosed: Bool { state.withLock { $0.closed != nil } }

    private func receive(_ event: LiveTransportEvent) {
        switch event {
        case .text(let text):
            guard let parsed = LiveEvent.parse(text) else { return }
            state.withLock { track(parsed, &$0) }
            continuation.yield(parsed)
        case .closed(let code, let reason, let failure):
            let first = state.withLock { state -> Bool in
                guard state.closed == nil else { return false }
                state.closed = (code, reason, failure)
                return true
            }
            guard first else { return }
            continuation.yield(.closed(code: code, reason: reason))
            continuation.finish()
        }
    }

    private func track(_ event: LiveEvent, _ state: inout SessionState) {
        switch event.kind {
        case .created(let info):
            state.info = info
            state.recordID = info.recordID
        case .updated(let info):
            state.info = info.merged(over: state.info)
            if state.updated { state.answered("update") }
            state.updated = true
        case .speechStarted:
            state.speaking = true
        case .speechStopped:
            state.speaking = false
        case .committed(let item, _):
            state.committed.append(item)
            state.answered("commit")
            state.speaking = false
        case .cleared:
            state.answered("clear")
        case .transcriptionCompleted(let item, _):
            state.finals.insert(item)
            state.completed.append(item)
        case .transcriptionFailed(let item, _):
            state.finals.insert(item)
        case .translationCompleted(let item, _, let translation):
            state.translated.insert(item)
            // A dialogue speaks a translation to the other side when that side listens.
            if let sides = state.dialogue, let channel = event.channel, sides.indices.contains(1 - channel),
                sides[1 - channel].speak, !translation.trimmingCharacters(in: .whitespaces).isEmpty
            {
                state.speechDue.insert(item)
            }
        case .translationFailed(let item, _, _):
            state.translated.insert(item)
        case .audioDone(let item, _, _, _, _), .audioFailed(let item, _, _):
            state.speechDue.remove(item)
        case .error(let error):
            if let eventID = error.eventID {
                if eventID == state.updateEventID, !state.updated { state.startupError = error }
                state.awaiting[eventID] = nil
            }
            if error.code == "RATE_LIMITED", state.info == nil || !state.updated { state.startupError = error }
        default:
            break
        }
    }

    // MARK: Sending

    /// Sends audio in ``Settings/inputFormat`` (PCM16 mono little-endian at its rate by default). Any length (split
    /// into messages of at most ``Options/maxAppendBytes``); send it as it is recorded, say every 100 ms. An Ogg Opus
    /// stream may be cut anywhere.
    ///
    /// - Throws: ``EarshotError`` `network` when the connection is closed or the send fails.
    public func append(audio: Data) async throws {
        try await append(audio: audio, channel: nil)
    }

    /// Sends a dialogue side's audio (``Settings/dialogue``): `channel` 0 or 1, the side speaking. One side speaks
    /// at a time: audio on the other side ends this side's turn.
    public func append(audio: Data, channel: Int?) async throws {
        var start = audio.startIndex
        while start < audio.endIndex {
            let end = audio.index(start, offsetBy: options.maxAppendBytes, limitedBy: audio.endIndex) ?? audio.endIndex
            let chunk = audio[start..<end]
            var event: [String: Any] = ["type": "input_audio_buffer.append", "audio": chunk.base64EncodedString()]
            if let channel { event["channel"] = channel }
            try await send(event)
            state.withLock { $0.bytesSinceCommit += chunk.count }
            start = end
        }
    }

    /// Makes the audio sent since the last item an item (manual turns; with server VAD, ends the current turn now).
    /// The server answers `committed`, or an `error` event (`input_audio_buffer_commit_empty` under 100 ms).
    public func commit() async throws {
        let eventID = "evt_commit_\(UUID().uuidString.prefix(8))"
        state.withLock {
            $0.awaiting[eventID] = "commit"
            $0.bytesSinceCommit = 0
        }
        try await send(["type": "input_audio_buffer.commit", "event_id": eventID])
    }

    /// Drops the audio not yet committed.
    public func clear() async throws {
        let eventID = "evt_clear_\(UUID().uuidString.prefix(8))"
        state.withLock {
            $0.awaiting[eventID] = "clear"
            $0.bytesSinceCommit = 0
        }
        try await send(["type": "input_audio_buffer.clear", "event_id": eventID])
    }

    /// Changes the settings (the answer is an `updated` or an `error` event). The sample rate cannot change once
    /// audio was sent.
    public func update(_ settings: Settings) async throws {
        let eventID = "evt_update_\(UUID().uuidString.prefix(8))"
        state.withLock { $0.awaiting[eventID] = "update" }
        try await send(Self.update(settings, eventID: eventID))
    }

    /// Sends a client event of your own (a JSON object with a `type`): for protocol features this SDK version does
    /// not wrap.
    public func send(event: [String: any Sendable]) async throws {
        try await send(event as [String: Any])
    }

    private func send(_ event: [String: Any]) async throws {
        guard let transport = transport.withLock({ $0 }), !isClosed else {
            let closed = state.withLock { $0.closed }
            throw EarshotError(
                .network, "the live session is closed" + (closed.map { " (\($0.code) \($0.reason))" } ?? ""))
        }
        let data = try JSONSerialization.data(withJSONObject: event)
        try await transport.send(text: String(decoding: data, as: UTF8.self))
    }

    /// The GA `session.update` for `settings`.
    static func update(_ settings: Settings, eventID: String) -> [String: Any] {
        var transcription: [String: Any] = [:]
        if let model = settings.model { transcription["model"] = model }
        if let language = settings.language { transcription["language"] = language }
        if let prompt = settings.prompt { transcription["prompt"] = prompt }
        transcription["translate_to"] = settings.translateTo ?? NSNull()
        if let window = settings.finalWindowMs { transcription["final_window_ms"] = window }
        let turn: Any =
            settings.serverVAD.map { vad -> Any in
                [
                    "type": "server_vad", "threshold": vad.threshold, "prefix_padding_ms": vad.prefixPaddingMs,
                    "silence_duration_ms": vad.silenceDurationMs,
                ] as [String: Any]
            } ?? NSNull()
        let input: [String: Any] = [
            "format": settings.inputFormat.json,
            "transcription": transcription, "turn_detection": turn,
        ]
        let include: Any = settings.interim ? ["item.input_audio_transcription.interim"] : NSNull()
        guard let sides = settings.dialogue else {
            return [
                "type": "session.update", "event_id": eventID,
                "session": ["type": "transcription", "audio": ["input": input], "include": include] as [String: Any],
            ]
        }
        var dialogueInput = input
        transcription["translate_to"] = nil
        transcription["language"] = nil
        dialogueInput["transcription"] = transcription
        let output: [String: Any] = ["format": settings.outputFormat.json]
        let channels: [[String: Any]] = sides.map { ["language": $0.language, "voice": $0.voice, "speak": $0.speak] }
        return [
            "type": "session.update", "event_id": eventID,
            "session": [
                "type": "dialogue", "channels": channels, "audio": ["input": dialogueInput, "output": output],
                "include": include,
            ] as [String: Any],
        ]
    }

    // MARK: Ending

    /// Ends the session gracefully: commits audio still waiting (with server VAD only when a turn is under way once the
    /// server has handled every append),
    /// waits until every item has its final text (and its translation when interpreting) — at most `timeout`
    /// seconds — then closes the connection with 1000. ``events`` ends after ``LiveEvent/Kind/closed(code:reason:)``.
    ///
    /// - Returns: true when every item got its final before the close, false after the timeout or when the
    ///   connection ended first.
    @discardableResult
    public func finish(timeout: TimeInterval = 60) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        let manual = state.withLock { $0.info.map { $0.serverVAD == nil } ?? false }
        if !manual {
            // The server may not have handled the last appends yet. A session update that changes nothing is answered
            // after them, so once it is, `speaking` says whether a turn is still under way.
            let eventID = "evt_sync_\(UUID().uuidString.prefix(8))"
            state.withLock { $0.awaiting[eventID] = "update" }
            if (try? await send(["type": "session.update", "event_id": eventID, "session": [String: Any]()])) != nil {
                await wait(until: deadline) { $0.awaiting[eventID] == nil }
            } else {
                state.withLock { $0.awaiting[eventID] = nil }
            }
        }
        let (speaking, waiting) = state.withLock { ($0.speaking, $0.bytesSinceCommit) }
        if speaking || (manual && waiting > 0) { try? await commit() }
        await wait(until: deadline) { $0.settled }
        let settled = state.withLock { $0.settled && $0.closed == nil }
        await close()
        return settled
    }

    /// Looks at the session's state every 20 ms until `done` holds for it, the connection has closed, the task is
    /// cancelled or `deadline` has passed.
    private func wait(until deadline: Date, for done: (SessionState) -> Bool) async {
        while !Task.isCancelled, Date() < deadline, !state.withLock({ done($0) || $0.closed != nil }) {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// Closes the connection now (1000) without waiting for finals; what the server already committed still
    /// becomes the record.
    public func close() async {
        guard let transport = transport.withLock({ $0 }) else { return }
        await transport.close(code: 1000, reason: "")
        // A transport that ended without reporting it (the server gone silent) still ends `events`.
        receive(.closed(code: 1000, reason: "closed by the client", failure: nil))
    }
}
