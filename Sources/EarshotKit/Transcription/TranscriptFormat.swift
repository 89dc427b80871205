/// Transcript export formats for ``TranscriptionClient/export(_:as:)`` (the server's `?format=`).
public struct TranscriptFormat: RawRepresentable, Hashable, Sendable {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// SubRip: numbered cues, `HH:MM:SS,mmm` times.
    public static let srt = TranscriptFormat(rawValue: "srt")
    /// WebVTT.
    public static let vtt = TranscriptFormat(rawValue: "vtt")
    /// The segments as JSON (the server's default format).
    public static let json = TranscriptFormat(rawValue: "json")
    /// Plain text, one segment a line.
    public static let text = TranscriptFormat(rawValue: "txt")
    /// Tab-separated values, one segment a line.
    public static let tsv = TranscriptFormat(rawValue: "tsv")
}
