/// The audio file types the upload API accepts by default, with the `Content-Type` a download is served with.
enum FileTypes {
    static let contentTypes: [String: String] = [
        "aac": "audio/aac", "amr": "audio/amr", "flac": "audio/flac", "m4a": "audio/mp4", "mp3": "audio/mpeg",
        "mp4": "audio/mp4", "ogg": "audio/ogg", "opus": "audio/opus", "wav": "audio/wav", "webm": "audio/webm",
    ]

    /// The default allow-list (`upload-filetypes`).
    static let defaults = ["aac", "amr", "flac", "m4a", "mp3", "ogg", "opus", "wav", "webm"]

    static func contentType(for filetype: String) -> String {
        contentTypes[filetype] ?? "application/octet-stream"
    }

    /// True for a plausible extension: 1-16 characters of a-z and 0-9.
    static func isWellFormed(_ filetype: String) -> Bool {
        (1...16).contains(filetype.utf8.count)
            && filetype.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }
}
