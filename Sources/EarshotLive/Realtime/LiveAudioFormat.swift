import EarshotAudio

/// An audio format on a live session's wire: what `input_audio_buffer.append` carries (`audio.input.format`, beta
/// `input_audio_format`), and what a dialogue's spoken translations are sent as (`audio.output.format`).
///
/// | GA `type` | beta name | what | rate |
/// |---|---|---|---|
/// | `audio/pcm` | `pcm16` | PCM16 little-endian mono | 24000 (OpenAI's) or 16000 |
/// | `audio/pcmu` | `g711_ulaw` | G.711 μ-law, a byte a sample (telephony bridges) | 8000 |
/// | `audio/pcma` | `g711_alaw` | G.711 A-law | 8000 |
/// | `audio/opus` | `opus` | an Ogg Opus stream (RFC 7845), cut anywhere between appends (Earshot's own) | decoded to / encoded from: 16000 in, 24000 out by default; 8, 12, 16, 24 or 48 kHz |
enum LiveAudioFormat: Equatable, Sendable {
    case pcm16(rate: Int)
    case g711(G711)
    case opus(rate: Int)

    /// The rate of the PCM16 behind the format, in Hz: what ``LiveInputDecoder`` returns and a session's recording
    /// holds, or what ``LiveOutputEncoder`` takes.
    var pcmRate: Int {
        switch self {
        case .pcm16(let rate), .opus(let rate): rate
        case .g711: G711.sampleRate
        }
    }

    /// The GA format object (`{"type": "audio/pcm", "rate": 24000}`).
    var json: JSONValue {
        switch self {
        case .pcm16(let rate): ["type": "audio/pcm", "rate": .number(Double(rate))]
        case .g711(.muLaw): ["type": "audio/pcmu"]
        case .g711(.aLaw): ["type": "audio/pcma"]
        case .opus(let rate): ["type": "audio/opus", "rate": .number(Double(rate))]
        }
    }

    /// The beta name (`pcm16`, `g711_ulaw`, `g711_alaw`, `opus`).
    var betaName: String {
        switch self {
        case .pcm16: "pcm16"
        case .g711(.muLaw): "g711_ulaw"
        case .g711(.aLaw): "g711_alaw"
        case .opus: "opus"
        }
    }

    static let names = "audio/pcm (pcm16), audio/pcmu (g711_ulaw), audio/pcma (g711_alaw) or audio/opus (Ogg Opus)"

    /// The format a client names (a GA `type` or a beta name), at `rate` when it gives one; `current` supplies the
    /// rate when it keeps its kind.
    ///
    /// - Throws: `unsupported_audio_format` for another name, or a rate the format does not come in.
    static func named(_ name: String, rate: Int?, current: LiveAudioFormat, output: Bool, param: String) throws
        -> LiveAudioFormat
    {
        let format: LiveAudioFormat
        switch name {
        case "audio/pcm", "pcm16":
            if case .pcm16(let old) = current {
                format = .pcm16(rate: rate ?? old)
            } else {
                format = .pcm16(rate: rate ?? 24_000)
            }
        case "audio/pcmu", "g711_ulaw": format = .g711(.muLaw)
        case "audio/pcma", "g711_alaw": format = .g711(.aLaw)
        case "audio/opus", "opus":
            if case .opus(let old) = current {
                format = .opus(rate: rate ?? old)
            } else {
                format = .opus(rate: rate ?? (output ? 24_000 : 16_000))
            }
        default:
            throw RealtimeError(
                code: "unsupported_audio_format",
                message: "audio format `\(name.prefix(40))` is not supported; use \(names)", param: param)
        }
        return try format.checked(rate: rate, param: param)
    }

    /// The same format at another rate (`input_audio_sample_rate`).
    func at(rate: Int, param: String) throws -> LiveAudioFormat {
        switch self {
        case .pcm16: try LiveAudioFormat.pcm16(rate: rate).checked(rate: rate, param: param)
        case .g711: try checked(rate: rate, param: param)
        case .opus: try LiveAudioFormat.opus(rate: rate).checked(rate: rate, param: param)
        }
    }

    private func checked(rate: Int?, param: String) throws -> LiveAudioFormat {
        let allowed =
            switch self {
            case .pcm16: [24_000, 16_000]
            case .g711: [G711.sampleRate]
            case .opus: [16_000, 24_000, 48_000, 12_000, 8_000]
            }
        guard allowed.contains(rate ?? pcmRate) else {
            let list = allowed.map(String.init).joined(separator: ", ")
            throw RealtimeError(
                code: "unsupported_audio_format",
                message: "\(json["type"]?.string ?? betaName) at \(rate ?? pcmRate) Hz is not supported; use \(list)",
                param: param)
        }
        return self
    }
}

/// Appended audio in a session's input format → PCM16 little-endian mono at the format's ``LiveAudioFormat/pcmRate``.
/// Keeps the state a stream needs across appends (an Ogg page or Opus packet cut between two appends); after Opus
/// that does not decode, the next append must start a new stream. Not thread-safe: the session's own.
final class LiveInputDecoder {
    let format: LiveAudioFormat
    private var opus: OggOpusDecoder?
    private var carry: [UInt8] = []

    init(format: LiveAudioFormat) throws {
        self.format = format
        if case .opus(let rate) = format { opus = try OggOpusDecoder(sampleRate: rate) }
    }

    /// The PCM16 bytes of an append.
    ///
    /// - Throws: ``RealtimeError`` `invalid_audio_format`: a file sent as PCM, or Opus that does not decode.
    func decode(_ bytes: [UInt8]) throws -> [UInt8] {
        switch format {
        case .pcm16(let rate):
            if let container = AudioContainer(sniffing: bytes)?.rawValue {
                throw RealtimeError(
                    code: "invalid_audio_format",
                    message: "`audio` holds a \(container) file; send raw PCM16 samples (little-endian, mono, "
                        + "\(rate) Hz), not a file",
                    param: "audio")
            }
            return bytes
        case .g711(let law):
            if let container = AudioContainer(sniffing: bytes)?.rawValue {
                throw RealtimeError(
                    code: "invalid_audio_format",
                    message: "`audio` holds a \(container) file; send raw G.711 bytes (8000 Hz, one byte a sample)",
                    param: "audio")
            }
            return law.decode(bytes).littleEndianBytes
        case .opus(let rate):
            do {
                return try opus!.decode(bytes).littleEndianBytes
            } catch {
                // The stream cannot go on past bytes that do not decode; the next append starts a new one.
                opus = try OggOpusDecoder(sampleRate: rate)
                throw RealtimeError(
                    code: "invalid_audio_format",
                    message: error.message + "; the audio so far is kept, and the next append must start a new Ogg "
                        + "Opus stream (its OpusHead page)",
                    param: "audio")
            }
        }
    }
}

/// A dialogue's spoken translation (PCM16 at the output format's rate) → the chunks of its `output_audio.delta`
/// events, about half a second each. With Opus, each response is one Ogg Opus stream: its deltas joined are a
/// playable `.opus` file (the first holds the headers, the last ends the stream).
enum LiveOutputEncoder {
    static func chunks(_ pcm16: [UInt8], format: LiveAudioFormat) throws -> [[UInt8]] {
        let halfSecond = format.pcmRate / 2
        switch format {
        case .pcm16:
            return stride(from: 0, to: pcm16.count, by: halfSecond * 2).map {
                Array(pcm16[$0..<min(pcm16.count, $0 + halfSecond * 2)])
            }
        case .g711(let law):
            let bytes = law.encode([Int16](littleEndianPCM: pcm16))
            return stride(from: 0, to: bytes.count, by: halfSecond).map {
                Array(bytes[$0..<min(bytes.count, $0 + halfSecond)])
            }
        case .opus(let rate):
            var configuration = OggOpusStream.Configuration()
            configuration.encoder.sampleRate = rate
            configuration.encoder.bitrate = 32_000
            configuration.packetsPerPage = 25  // 20 ms frames: a page per half second
            let stream = try OggOpusStream(configuration: configuration)
            let samples = [Int16](littleEndianPCM: pcm16).map { Float($0) / 32_768 }
            var chunks: [[UInt8]] = []
            var pending = stream.start()
            for start in stride(from: 0, to: samples.count, by: halfSecond) {
                pending += try stream.append(Array(samples[start..<min(samples.count, start + halfSecond)]))
                if !pending.isEmpty {
                    chunks.append(pending)
                    pending = []
                }
            }
            pending += try stream.finish()
            chunks.append(pending)
            return chunks
        }
    }
}
