/// The audio file types the upload API accepts by default, with the `Content-Type` a download is served with.
///
/// The defaults are every extension of a container the decoder reads (EarshotAudio's demuxer list: WAV/W64, MP3,
/// MP4/M4A/MOV/3GP, FLAC, Ogg, Matroska/WebM, AAC, AIFF, CAF, AMR, WavPack, ASF/WMA, AU, AVI) plus headerless
/// 16 kHz mono s16le `raw`/`pcm`, so whatever `earshot transcribe` decodes can be uploaded.
enum FileTypes {
    static let contentTypes: [String: String] = [
        "3gp": "audio/3gpp", "aac": "audio/aac", "aif": "audio/aiff", "aiff": "audio/aiff", "amr": "audio/amr",
        "au": "audio/basic", "avi": "video/x-msvideo", "caf": "audio/x-caf", "flac": "audio/flac",
        "m4a": "audio/mp4", "mka": "audio/x-matroska", "mkv": "video/x-matroska", "mov": "video/quicktime",
        "mp3": "audio/mpeg", "mp4": "audio/mp4", "oga": "audio/ogg", "ogg": "audio/ogg", "opus": "audio/opus",
        "pcm": "audio/L16", "raw": "audio/L16", "w64": "audio/x-w64", "wav": "audio/wav", "weba": "audio/webm",
        "webm": "audio/webm", "wma": "audio/x-ms-wma", "wv": "audio/x-wavpack",
    ]

    /// The default allow-list (`upload-filetypes`): every type above.
    static let defaults = contentTypes.keys.sorted()

    static func contentType(for filetype: String) -> String {
        contentTypes[filetype] ?? "application/octet-stream"
    }

    /// True for a plausible extension: 1-16 characters of a-z and 0-9.
    static func isWellFormed(_ filetype: String) -> Bool {
        (1...16).contains(filetype.utf8.count)
            && filetype.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }
}
