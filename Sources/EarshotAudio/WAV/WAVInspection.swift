/// The result of ``WAVInspector/inspect(_:)``: which of the three compliance tiers a file is in, and the header
/// fields it was judged on.
public struct WAVInspection: Sendable, Hashable {
    /// The three tiers of input compliance.
    public enum Tier: Sendable, Hashable {
        /// 16 kHz, 16-bit, mono, integer PCM: used as is.
        case compliant
        /// PCM that differs in sample rate, bit depth, channel count, or IEEE-float samples: accepted with these
        /// warnings (one sentence per difference) and converted on decode.
        case convertible(warnings: [String])
        /// Not usable: not RIFF/WAVE, compressed (ADPCM, µ-law, A-law, MP3 in WAV…), or a broken header. `reason`
        /// says what is wrong; `conversionCommand` is the exact command that produces a compliant file.
        case refused(reason: String, conversionCommand: String)
    }

    /// The tier the file is in.
    public let tier: Tier
    /// The parsed format and data chunk, nil when the header could not be read far enough.
    public let format: WAVFormat?

    /// True for ``Tier/compliant`` and ``Tier/convertible(warnings:)``: Earshot can decode the file.
    public var isAccepted: Bool {
        if case .refused = tier { return false }
        return true
    }

    /// The warnings of a convertible file (empty otherwise).
    public var warnings: [String] {
        if case .convertible(let warnings) = tier { return warnings }
        return []
    }
}

/// The header fields of a WAV file that matter for compliance.
public struct WAVFormat: Sendable, Hashable {
    /// The `wFormatTag` as written (1 PCM, 3 IEEE float, 0xFFFE extensible, 2 MS ADPCM, 0x55 MP3…).
    public var formatTag: UInt16
    /// The effective format: `formatTag`, or for WAVE_FORMAT_EXTENSIBLE the first two bytes of the sub-format GUID.
    public var encodingTag: UInt16
    /// Channels.
    public var channels: Int
    /// Sample rate in Hz.
    public var sampleRate: Int
    /// Bits per sample (container size).
    public var bitsPerSample: Int
    /// Bytes per sample frame (all channels).
    public var blockAlign: Int
    /// Offset of the first sample byte in the file.
    public var dataOffset: Int64
    /// Size of the data chunk in bytes (from the header, or the `ds64` chunk of an RF64 file).
    public var dataSize: Int64

    /// True for integer PCM (format 1, or extensible with the PCM sub-format).
    public var isIntegerPCM: Bool { encodingTag == 1 }
    /// True for IEEE float samples (format 3, or extensible with the float sub-format).
    public var isFloat: Bool { encodingTag == 3 }

    /// Whole sample frames in the data chunk.
    public var frameCount: Int64 { blockAlign > 0 ? dataSize / Int64(blockAlign) : 0 }

    /// The audio duration the header declares.
    public var duration: Duration {
        guard sampleRate > 0 else { return .zero }
        return .microseconds(frameCount * 1_000_000 / Int64(sampleRate))
    }

    /// A human name for ``encodingTag`` ("integer PCM", "IEEE float", "IMA ADPCM", …).
    public var encodingName: String { Self.name(ofTag: encodingTag) }

    static func name(ofTag tag: UInt16) -> String {
        switch tag {
        case 0x0001: "integer PCM"
        case 0x0002: "Microsoft ADPCM"
        case 0x0003: "IEEE float"
        case 0x0006: "A-law"
        case 0x0007: "µ-law"
        case 0x0011: "IMA ADPCM"
        case 0x0031: "GSM 6.10"
        case 0x0050: "MPEG audio"
        case 0x0055: "MP3"
        case 0x0160, 0x0161: "WMA"
        case 0x00FF, 0x1610: "AAC"
        default: "format 0x" + String(tag, radix: 16, uppercase: true)
        }
    }
}
