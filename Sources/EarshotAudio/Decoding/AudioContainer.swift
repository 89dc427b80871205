/// The container a few leading bytes announce, by their magic numbers: for refusing a file sent where raw samples
/// or an Ogg Opus stream were expected (live input), with a message that names what came.
public enum AudioContainer: String, Sendable {
    case wav = "WAV (RIFF)"
    case ogg = "Ogg"
    case flac = "FLAC"
    case matroska = "WebM/Matroska"
    case mp3 = "MP3"

    /// The container `bytes` start with, or nil for bytes no known container starts with.
    public init?(sniffing bytes: [UInt8]) {
        guard bytes.count >= 4 else { return nil }
        switch Array(bytes.prefix(4)) {
        case Array("RIFF".utf8): self = .wav
        case Array("OggS".utf8): self = .ogg
        case Array("fLaC".utf8): self = .flac
        case [0x1A, 0x45, 0xDF, 0xA3]: self = .matroska
        default:
            guard Array(bytes.prefix(3)) == Array("ID3".utf8) else { return nil }
            self = .mp3
        }
    }
}
