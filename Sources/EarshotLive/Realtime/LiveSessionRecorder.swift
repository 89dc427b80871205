public import EarshotSpeech

/// Keeps what a live session heard and understood, so a server can make the session a record when it ends.
///
/// The session calls it from its own task, in order: every accepted append's audio as the client sent it, and each
/// committed item once its final decode is done (in commit order). Implementations must not block for long (a file
/// write is fine); they are called while the client waits for the session's events.
public protocol LiveSessionRecorder: Sendable {
    /// Audio the session accepted: PCM16 little-endian mono at `sampleRate`, exactly as received (G.711 and Opus
    /// input decoded to PCM16 first, nothing resampled), nothing left out (audio later cleared too), so the session's
    /// audio clock is the recording's. The rate never changes once audio was received (the session refuses such an
    /// update).
    ///
    /// - Throws: when the audio cannot be kept (disk full): the append is refused with a `server_error` event.
    func received(_ pcm16: [UInt8], sampleRate: Int) throws

    /// A committed item whose final decode ended (``LiveItem/text`` nil when it failed).
    func finished(_ item: LiveItem)

    /// The translation of a finished item into `language` (`translate_to`, or a dialogue's other side), called
    /// after ``finished(_:)`` for that item, only for translations sent to the client as such (never one the
    /// quality gate refused).
    func translated(_ item: String, language: String, text: String)
}

/// A committed item of a session: its place on the session's audio clock and its final text.
public struct LiveItem: Sendable, Hashable {
    /// The item id the client saw (`item_…`).
    public var id: String
    /// Where the decoded audio starts and ends, in milliseconds since the session's first audio.
    public var startMs: Int
    public var endMs: Int
    /// The final text (as in the `completed` event); nil when the decode failed.
    public var text: String?
    /// The language the text was decoded in (the session's, or the one the engine detected); nil when unknown.
    public var language: String?
    /// Why the decode failed, when it did.
    public var failure: String?
    /// The model the session asked for (as the client named it); nil for the default.
    public var model: String?
    /// A dialogue: the side that spoke it (0 or 1); nil in a transcription session.
    public var channel: Int?
    /// The words of ``text`` with their times in milliseconds since the session's first audio.
    public var words: [Transcript.Word]

    public init(
        id: String, startMs: Int, endMs: Int, text: String?, language: String? = nil, failure: String? = nil,
        model: String? = nil, channel: Int? = nil, words: [Transcript.Word] = []
    ) {
        self.id = id
        self.channel = channel
        self.words = words
        self.model = model
        self.startMs = startMs
        self.endMs = endMs
        self.text = text
        self.language = language
        self.failure = failure
    }
}
