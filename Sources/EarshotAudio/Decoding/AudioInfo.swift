/// What a probe of an audio file found, before any decoding: the container, the codec and the stream's native
/// parameters. Values are FFmpeg's names (`"mov,mp4,m4a,3gp,3g2,mj2"`, `"aac"`, `"fltp"`), good for logs and for
/// deciding whether a WAV needs a warning; the decoded output is always 16 kHz mono `Float` whatever they say.
public struct AudioInfo: Sendable, Hashable, CustomStringConvertible {
    /// FFmpeg's short name of the container (demuxer), for example `"wav"`, `"mp3"`, `"ogg"`, `"matroska,webm"`.
    public var container: String
    /// The codec of the audio stream, for example `"pcm_s16le"`, `"mp3"`, `"aac"`, `"opus"`, `"flac"`.
    public var codec: String
    /// The stream's native sample rate in Hz.
    public var sampleRate: Int
    /// The stream's channel count.
    public var channels: Int
    /// FFmpeg's name of the decoded sample format (`"s16"`, `"s32"`, `"flt"`, `"fltp"`, `"u8"`), or `"unknown"`.
    public var sampleFormat: String
    /// Bits per sample for PCM and lossless codecs (8, 16, 24, 32); nil for lossy codecs.
    public var bitsPerSample: Int?
    /// The duration the container declares (or FFmpeg estimates), nil when unknown.
    public var duration: Duration?
    /// The audio stream's bit rate in bits per second (the container's when the stream has none), nil when unknown.
    public var bitRate: Int?

    public init(
        container: String, codec: String, sampleRate: Int, channels: Int, sampleFormat: String,
        bitsPerSample: Int? = nil, duration: Duration? = nil, bitRate: Int? = nil
    ) {
        self.container = container
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
        self.sampleFormat = sampleFormat
        self.bitsPerSample = bitsPerSample
        self.duration = duration
        self.bitRate = bitRate
    }

    /// ``duration`` in whole milliseconds (rounded down), as the wire format carries times.
    public var durationMilliseconds: Int? {
        guard let duration else { return nil }
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    public var description: String {
        var parts = ["\(container)/\(codec)", "\(sampleRate) Hz", "\(channels) ch", sampleFormat]
        if let bitsPerSample { parts.append("\(bitsPerSample)-bit") }
        if let durationMilliseconds { parts.append("\(durationMilliseconds) ms") }
        if let bitRate { parts.append("\(bitRate / 1000) kb/s") }
        return parts.joined(separator: ", ")
    }
}

/// How a decode went so far: what was delivered, what the header promised, what was damaged.
public struct DecodeReport: Sendable, Hashable {
    /// 16 kHz mono samples handed to the caller so far.
    public var samplesDelivered: Int
    /// The number of 16 kHz samples the container's header declares, when it declares one reliably (not when
    /// FFmpeg merely estimated the duration from the bit rate).
    public var expectedSamples: Int?
    /// Packets the decoder rejected as damaged and skipped (the rest of the stream was still decoded).
    public var damagedPackets: Int
    /// True when the stream ended well before the declared length (or reading failed mid-file). Only set once
    /// the end has been reached.
    public var isTruncated: Bool
    /// True once the whole stream has been read.
    public var isFinished: Bool

    /// ``samplesDelivered`` as a duration at 16 kHz.
    public var deliveredDuration: Duration { .microseconds(Int64(samplesDelivered) * 1_000_000 / 16_000) }
}

/// The sample layout of a headerless PCM file (such as a recorder's `.raw`/`.pcm` dump).
public enum RawPCMFormat: String, Sendable, CaseIterable {
    /// Signed 16-bit little-endian integers (the most common raw format).
    case s16le
    /// Signed 16-bit big-endian integers.
    case s16be
    /// Signed 24-bit little-endian integers, packed in 3 bytes.
    case s24le
    /// Signed 32-bit little-endian integers.
    case s32le
    /// 32-bit little-endian IEEE floats.
    case f32le
    /// 64-bit little-endian IEEE floats.
    case f64le
    /// Unsigned 8-bit integers (128 is silence).
    case u8
    /// G.711 µ-law, 8 bits per sample.
    case mulaw
    /// G.711 A-law, 8 bits per sample.
    case alaw

    /// Bytes per sample of one channel.
    public var bytesPerSample: Int {
        switch self {
        case .s16le, .s16be: 2
        case .s24le: 3
        case .s32le, .f32le: 4
        case .f64le: 8
        case .u8, .mulaw, .alaw: 1
        }
    }
}
