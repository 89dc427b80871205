public import Foundation

/// One event of a ``LiveSession``: what the server said (or that the connection closed), typed, with the message as
/// received.
///
/// ``kind`` is the typed view; ``type`` the wire name and ``json`` the whole message, so a field this SDK version
/// does not model (a newer server's) can still be read with ``field(_:as:)``. An event type this version does not
/// know is ``Kind/unknown``, never an error: a newer server does not break an older app.
public struct LiveEvent: Sendable, CustomStringConvertible {
    /// What happened. Extensible: later versions add cases (switch with a `default` branch).
    public enum Kind: Sendable, Equatable {
        /// `session.created` / `transcription_session.created`: the session's settings and the id of the record it
        /// will become.
        case created(LiveSessionInfo)
        /// `session.updated` / `transcription_session.updated`: the settings after an accepted update.
        case updated(LiveSessionInfo)
        /// Server VAD heard speech begin, `audioStartMs` into the session's audio.
        case speechStarted(itemID: String, audioStartMs: Int)
        /// Server VAD heard the speech end (after the silence it waits for).
        case speechStopped(itemID: String, audioEndMs: Int)
        /// A turn (server VAD) or the buffer (``LiveSession/commit()``) became an item to transcribe.
        case committed(itemID: String, previousItemID: String?)
        /// The uncommitted audio was dropped (``LiveSession/clear()``).
        case cleared
        /// More of an item's text: stable words while it is spoken, the rest once it is decoded whole. Append the
        /// deltas of an item to show its partial text.
        case transcriptionDelta(itemID: String, delta: String)
        /// With ``LiveSession/Settings/interim``: the newest reading of an item's words after its deltas, not yet
        /// stable. Show it after the deltas (greyed), replacing the item's previous interim text; the next delta or
        /// the final text supersedes it.
        case transcriptionInterim(itemID: String, text: String)
        /// The item's final text (replacing its deltas).
        case transcriptionCompleted(itemID: String, transcript: String)
        /// The item could not be transcribed (the session goes on).
        case transcriptionFailed(itemID: String, error: LiveError)
        /// The item's translation (with ``LiveSession/Settings/translateTo``), after its `transcriptionCompleted`.
        case translationCompleted(itemID: String, language: String, translation: String)
        /// No trustworthy translation of the item; `error.code` says why (`translation_untrusted`, …).
        case translationFailed(itemID: String, language: String, error: LiveError)
        /// A dialogue: more of an item's translation spoken to the listening side `channel`, in the session's
        /// ``LiveSession/Settings/outputFormat`` (PCM16 mono at 24 kHz by default), about 0.5 s per event.
        case audioDelta(itemID: String, channel: Int, audio: Data)
        /// A dialogue: the item's translation was spoken in full to `channel` (`transcript` is what was said).
        case audioDone(itemID: String, channel: Int, language: String, transcript: String, audioMs: Int)
        /// A dialogue: the translation could not be spoken (the session goes on).
        case audioFailed(itemID: String, channel: Int, error: LiveError)
        /// The server refused a client event (the session goes on), or refused the session (`RATE_LIMITED`).
        case error(LiveError)
        /// The connection ended: the close code and reason (1000 normal, 1001 server shutting down, 1008 a client that
        /// stopped reading, 1013 the server is full, 1006 no close frame). Always the last event.
        case closed(code: Int, reason: String)
        /// An event type this SDK version does not know; read it through ``LiveEvent/json``.
        case unknown
    }

    /// The typed event.
    public let kind: Kind
    /// The wire name (`conversation.item.input_audio_transcription.delta`, …); `closed` for
    /// ``Kind/closed(code:reason:)``.
    public let type: String
    /// The message as received (UTF-8 JSON); empty for ``Kind/closed(code:reason:)``.
    public let json: Data

    public init(kind: Kind, type: String, json: Data) {
        self.kind = kind
        self.type = type
        self.json = json
    }

    /// The item the event is about, for the item events.
    public var itemID: String? {
        switch kind {
        case .speechStarted(let item, _), .speechStopped(let item, _), .committed(let item, _),
            .transcriptionDelta(let item, _), .transcriptionInterim(let item, _), .transcriptionCompleted(let item, _),
            .transcriptionFailed(let item, _),
            .translationCompleted(let item, _, _), .translationFailed(let item, _, _), .audioDelta(let item, _, _),
            .audioDone(let item, _, _, _, _), .audioFailed(let item, _, _):
            item
        default:
            nil
        }
    }

    /// A dialogue's side the event is about (Earshot's `channel`: the speaker's for item and translation events, the
    /// listener's for audio events); nil outside dialogues.
    public var channel: Int? { field("channel", as: Int.self) }

    /// A top-level field of the message decoded as `T` (nil when absent or of another type): the way to read fields
    /// this SDK version does not model.
    public func field<T: Decodable>(_ name: String, as type: T.Type = T.self) -> T? {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any], let value = object[name],
            JSONSerialization.isValidJSONObject([value]),
            let data = try? JSONSerialization.data(withJSONObject: [value])
        else { return nil }
        return (try? JSONDecoder().decode([T].self, from: data))?.first
    }

    public var description: String {
        json.isEmpty ? "\(kind)" : String(decoding: json, as: UTF8.self)
    }

    /// Parses a server message; nil when it is not a JSON object with a string `type`.
    static func parse(_ text: String) -> LiveEvent? {
        let data = Data(text.utf8)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let type = object["type"] as? String
        else { return nil }
        return LiveEvent(kind: kind(type, JSONObject(object)), type: type, json: data)
    }

    /// The connection's last event.
    static func closed(code: Int, reason: String) -> LiveEvent {
        LiveEvent(kind: .closed(code: code, reason: reason), type: "closed", json: Data())
    }

    /// The typed view of a message: one line per event type (add new types here).
    private static func kind(_ type: String, _ event: JSONObject) -> Kind {
        let item = event.string("item_id") ?? ""
        switch type {
        case "session.created", "transcription_session.created":
            return .created(LiveSessionInfo(event))
        case "session.updated", "transcription_session.updated":
            return .updated(LiveSessionInfo(event))
        case "input_audio_buffer.speech_started":
            return .speechStarted(itemID: item, audioStartMs: event.int("audio_start_ms") ?? 0)
        case "input_audio_buffer.speech_stopped":
            return .speechStopped(itemID: item, audioEndMs: event.int("audio_end_ms") ?? 0)
        case "input_audio_buffer.committed":
            return .committed(itemID: item, previousItemID: event.string("previous_item_id"))
        case "input_audio_buffer.cleared":
            return .cleared
        case "conversation.item.input_audio_transcription.delta":
            return .transcriptionDelta(itemID: item, delta: event.string("delta") ?? "")
        case "conversation.item.input_audio_transcription.interim":
            return .transcriptionInterim(itemID: item, text: event.string("text") ?? "")
        case "conversation.item.input_audio_transcription.completed":
            return .transcriptionCompleted(itemID: item, transcript: event.string("transcript") ?? "")
        case "conversation.item.input_audio_transcription.failed":
            return .transcriptionFailed(itemID: item, error: LiveError(event.object("error")))
        case "conversation.item.input_audio_translation.completed":
            return .translationCompleted(
                itemID: item, language: event.string("language") ?? "", translation: event.string("translation") ?? "")
        case "conversation.item.input_audio_translation.failed":
            return .translationFailed(
                itemID: item, language: event.string("language") ?? "", error: LiveError(event.object("error")))
        case "response.output_audio.delta", "response.audio.delta":
            return .audioDelta(
                itemID: item, channel: event.int("channel") ?? 0,
                audio: Data(base64Encoded: event.string("delta") ?? "") ?? Data())
        case "response.output_audio.done", "response.audio.done":
            return .audioDone(
                itemID: item, channel: event.int("channel") ?? 0, language: event.string("language") ?? "",
                transcript: event.string("transcript") ?? "", audioMs: event.int("audio_ms") ?? 0)
        case "response.output_audio.failed":
            return .audioFailed(
                itemID: item, channel: event.int("channel") ?? 0, error: LiveError(event.object("error")))
        case "error":
            return .error(LiveError(event.object("error")))
        default:
            return .unknown
        }
    }
}

/// An `error` object of the realtime protocol: a refused client event, a failed transcription or translation.
public struct LiveError: Sendable, Equatable, CustomStringConvertible {
    /// `invalid_request_error`, `server_error`, `rate_limit_error`.
    public var type: String
    /// `invalid_value`, `input_audio_buffer_commit_empty`, `transcription_failed`, `RATE_LIMITED`, … (docs/live.md).
    public var code: String
    /// What was wrong, for humans.
    public var message: String
    /// The field of the client event that was wrong, when the server named one.
    public var param: String?
    /// The `event_id` of the client event that was refused, when it had one.
    public var eventID: String?

    public init(type: String, code: String, message: String, param: String? = nil, eventID: String? = nil) {
        self.type = type
        self.code = code
        self.message = message
        self.param = param
        self.eventID = eventID
    }

    init(_ object: JSONObject?) {
        self.init(
            type: object?.string("type") ?? "", code: object?.string("code") ?? "",
            message: object?.string("message") ?? "", param: object?.string("param"),
            eventID: object?.string("event_id"))
    }

    public var description: String {
        "\(code): \(message)" + (param.map { " (\($0))" } ?? "")
    }
}

/// A live session's settings as the server reports them in `created`/`updated` (both dialects read).
public struct LiveSessionInfo: Sendable, Equatable {
    /// The session's id (`sess_…`).
    public var sessionID: String?
    /// The record the session becomes when it ends (nil with `store: false`).
    public var recordID: String?
    public var model: String?
    public var language: String?
    public var prompt: String?
    public var translateTo: String?
    /// The input's sample rate in Hz (16000 or 24000).
    public var sampleRate: Int?
    /// Server VAD's settings, or nil for manual commits.
    public var serverVAD: LiveSession.ServerVAD?

    init(_ event: JSONObject) {
        let session = event.object("session")
        recordID = event.string("record_id")
        sessionID = session?.string("id")
        let input = session?.object("audio")?.object("input")
        let transcription = input?.object("transcription") ?? session?.object("input_audio_transcription")
        model = transcription?.string("model")
        language = transcription?.string("language")
        prompt = transcription?.string("prompt")
        translateTo = transcription?.string("translate_to")
        sampleRate = input?.object("format")?.int("rate") ?? session?.int("input_audio_sample_rate")
        let turn = input != nil ? input?.object("turn_detection") : session?.object("turn_detection")
        serverVAD = turn.map { turn in
            LiveSession.ServerVAD(
                threshold: turn.double("threshold") ?? 0.5, prefixPaddingMs: turn.int("prefix_padding_ms") ?? 300,
                silenceDurationMs: turn.int("silence_duration_ms") ?? 500)
        }
    }
}

extension LiveSessionInfo {
    /// This (an `updated` event's, which may echo only the fields the update named) over `previous`: fields it
    /// leaves out keep their earlier value; `translateTo` and `serverVAD` are this one's (null turns them off).
    func merged(over previous: LiveSessionInfo?) -> LiveSessionInfo {
        guard let previous else { return self }
        var merged = self
        merged.sessionID = sessionID ?? previous.sessionID
        merged.recordID = recordID ?? previous.recordID
        merged.model = model ?? previous.model
        merged.language = language ?? previous.language
        merged.prompt = prompt ?? previous.prompt
        merged.sampleRate = sampleRate ?? previous.sampleRate
        return merged
    }
}

/// Typed reads of a `JSONSerialization` object (nil for a missing field or one of another type).
struct JSONObject: @unchecked Sendable {
    // SAFETY: built from JSONSerialization's output and never mutated; read only.
    let values: [String: Any]

    init(_ values: [String: Any]) {
        self.values = values
    }

    func string(_ key: String) -> String? { values[key] as? String }
    func double(_ key: String) -> Double? {
        switch values[key] {
        case let value as Double: value
        case let value as Int: Double(value)
        case let value as NSNumber: value.doubleValue
        default: nil
        }
    }
    func int(_ key: String) -> Int? { double(key).map { Int($0) } }
    func object(_ key: String) -> JSONObject? { (values[key] as? [String: Any]).map(JSONObject.init) }
}
