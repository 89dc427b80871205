import Foundation

/// What a UI shows of a live session: each item's text as it goes from partial to final, with its times and its
/// translation. Feed it every event of ``LiveSession/events``; a value type, so keep it where your UI state lives.
///
/// ```swift
/// var transcript = LiveTranscript()
/// for await event in session.events {
///     if let item = transcript.apply(event) { render(item) }    // the item that changed
/// }
/// ```
public struct LiveTranscript: Sendable, Equatable {
    /// One item (a turn, or a committed buffer).
    public struct Item: Sendable, Equatable, Identifiable {
        public var id: String
        /// The partial text (the deltas so far) until ``isFinal``, then the final text.
        public var text: String
        /// With ``LiveSession/Settings/interim``, until ``isFinal``: the newest reading of the words after
        /// ``text``, not yet stable (show it after ``text``, greyed); empty otherwise.
        public var interim = ""
        /// The final text arrived (or the transcription failed: ``failure``).
        public var isFinal: Bool
        /// Why the item has no text, when its transcription failed.
        public var failure: LiveError?
        /// Where the speech began and ended on the session's audio clock, in ms (server VAD only).
        public var startMs: Int?
        public var endMs: Int?
        /// The translation (with ``LiveSession/Settings/translateTo``), once it arrived.
        public var translation: String?
        /// Why there is no translation, when it failed.
        public var translationFailure: LiveError?
        /// A dialogue: the side that spoke it (0 or 1); nil outside dialogues.
        public var channel: Int?
        /// A dialogue: how long the spoken translation is, in ms of audio (once ``spoken``; the audio itself is in
        /// the `audioDelta` events).
        public var spokenMs: Int = 0
        /// A dialogue: the translation was spoken in full (or could not be: ``speechFailure``).
        public var spoken = false
        /// Why the translation could not be spoken.
        public var speechFailure: LiveError?
    }

    /// The items in the order the session made them.
    public private(set) var items: [Item] = []

    public init() {}

    /// The final texts so far, joined by spaces.
    public var finalText: String {
        items.filter(\.isFinal).map(\.text).filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Everything shown: finals and partials, joined by spaces.
    public var text: String {
        items.map(\.text).filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Applies one event; returns the item it changed, or nil when it changed none.
    @discardableResult
    public mutating func apply(_ event: LiveEvent) -> Item? {
        if let channel = event.channel, let id = event.itemID {
            switch event.kind {
            case .audioDelta, .audioDone, .audioFailed: break  // the listener's channel
            default: _ = change(id) { $0.channel = channel }
            }
        }
        switch event.kind {
        case .speechStarted(let id, let start):
            return change(id) { $0.startMs = start }
        case .speechStopped(let id, let end):
            return change(id) { $0.endMs = end }
        case .committed(let id, _):
            return change(id) { _ in }
        case .transcriptionDelta(let id, let delta):
            return change(id) { item in
                guard !item.isFinal else { return }
                item.text += delta
                item.interim = Self.interim(item.interim, after: delta)
            }
        case .transcriptionInterim(let id, let text):
            return change(id) { item in if !item.isFinal { item.interim = text } }
        case .transcriptionCompleted(let id, let transcript):
            return change(id) { item in
                item.text = transcript.trimmingCharacters(in: .whitespaces)
                item.interim = ""
                item.isFinal = true
            }
        case .transcriptionFailed(let id, let error):
            return change(id) { item in
                item.interim = ""
                item.isFinal = true
                item.failure = error
            }
        case .translationCompleted(let id, _, let translation):
            return change(id) { $0.translation = translation }
        case .translationFailed(let id, _, let error):
            return change(id) { $0.translationFailure = error }
        case .audioDone(let id, _, _, _, let milliseconds):
            return change(id) { item in
                item.spokenMs = milliseconds
                item.spoken = true
            }
        case .audioFailed(let id, _, let error):
            return change(id) { item in
                item.spoken = true
                item.speechFailure = error
            }
        default:
            return nil
        }
    }

    /// What is left of `interim` once `delta` became stable: its first words, when they are the delta's (compared
    /// without case and punctuation), have moved into the item's text. The server sends the decode's new interim
    /// text right after, so a caption neither shows those words twice nor drops the rest in between.
    static func interim(_ interim: String, after delta: String) -> String {
        func key(_ word: Substring) -> String { String(word.lowercased().filter { $0.isLetter || $0.isNumber }) }
        let stable = delta.split(whereSeparator: \.isWhitespace).map(key).filter { !$0.isEmpty }
        var words = interim.split(whereSeparator: \.isWhitespace)[...]
        var matched = 0
        while matched < stable.count, let first = words.first, key(first).isEmpty || key(first) == stable[matched] {
            if !key(first).isEmpty { matched += 1 }
            words = words.dropFirst()
        }
        return matched == 0 ? interim : words.joined(separator: " ")
    }

    private mutating func change(_ id: String, _ body: (inout Item) -> Void) -> Item? {
        guard !id.isEmpty else { return nil }
        let index =
            items.firstIndex { $0.id == id }
            ?? {
                items.append(Item(id: id, text: "", isFinal: false))
                return items.count - 1
            }()
        body(&items[index])
        return items[index]
    }
}
