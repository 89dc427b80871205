internal import COpus

/// Encodes mono speech to Opus packets with libopus: what a recorder device stores (in Ogg, ``OggOpusStream``).
///
/// Feed exactly ``frameSize`` samples per ``encode(_:)``. Not thread-safe: one encoder per stream.
public final class OpusEncoder {
    /// How to encode.
    public struct Configuration: Sendable {
        /// Input sample rate: 8, 12, 16, 24 or 48 kHz (devices record at 16 kHz).
        public var sampleRate: Int = 16_000
        /// Target bit rate in bits per second (24 kb/s is transparent enough for speech recognition).
        public var bitrate: Int = 24_000
        /// Encoder complexity 0–10: CPU against quality (a device's microcontroller runs low settings).
        public var complexity: Int = 5
        /// Frame length in milliseconds: 10, 20, 40 or 60.
        public var frameMilliseconds: Int = 20

        public init() {}
    }

    /// The settings in use.
    public let configuration: Configuration
    /// Samples per frame at the input rate.
    public let frameSize: Int
    /// The encoder's look-ahead at the input rate: a decoder skips this many samples at the start (Ogg pre-skip).
    public let lookahead: Int
    private let encoder: OpaquePointer

    /// An encoder for `configuration`.
    ///
    /// - Throws: ``AudioError`` `.invalidArgument` for a rate or frame length Opus does not support; `.failed` if
    ///   libopus cannot create the encoder.
    public init(configuration: Configuration = Configuration()) throws(AudioError) {
        guard [8_000, 12_000, 16_000, 24_000, 48_000].contains(configuration.sampleRate) else {
            throw AudioError(
                .invalidArgument, "Opus encodes 8, 12, 16, 24 or 48 kHz, not \(configuration.sampleRate) Hz")
        }
        guard [10, 20, 40, 60].contains(configuration.frameMilliseconds) else {
            throw AudioError(
                .invalidArgument, "Opus frames are 10, 20, 40 or 60 ms, not \(configuration.frameMilliseconds) ms")
        }
        var status: Int32 = 0
        guard
            let encoder = opus_encoder_create(
                opus_int32(configuration.sampleRate), 1, OPUS_APPLICATION_VOIP, &status), status == OPUS_OK
        else {
            throw opusError(status, "opus_encoder_create")
        }
        self.encoder = encoder
        self.configuration = configuration
        self.frameSize = configuration.sampleRate * configuration.frameMilliseconds / 1_000
        var lookahead: opus_int32 = 0
        do {
            try checkOpus(earshot_opus_set_bitrate(encoder, opus_int32(configuration.bitrate)), "OPUS_SET_BITRATE")
            try checkOpus(
                earshot_opus_set_complexity(encoder, opus_int32(min(max(configuration.complexity, 0), 10))),
                "OPUS_SET_COMPLEXITY")
            try checkOpus(earshot_opus_set_signal_voice(encoder), "OPUS_SET_SIGNAL")
            try checkOpus(earshot_opus_get_lookahead(encoder, &lookahead), "OPUS_GET_LOOKAHEAD")
        } catch {
            opus_encoder_destroy(encoder)
            throw error
        }
        self.lookahead = Int(lookahead)
    }

    deinit {
        opus_encoder_destroy(encoder)
    }

    /// One Opus packet for exactly ``frameSize`` samples in [-1, 1].
    ///
    /// - Throws: ``AudioError`` `.invalidArgument` for another number of samples; `.failed` if libopus fails.
    public func encode(_ frame: [Float]) throws(AudioError) -> [UInt8] {
        guard frame.count == frameSize else {
            throw AudioError(.invalidArgument, "an Opus frame here is \(frameSize) samples, not \(frame.count)")
        }
        var packet = [UInt8](repeating: 0, count: 1_500)
        let count = frame.withUnsafeBufferPointer { samples in
            packet.withUnsafeMutableBufferPointer { output in
                opus_encode_float(
                    encoder, samples.baseAddress!, Int32(frameSize), output.baseAddress!, opus_int32(output.count))
            }
        }
        try checkOpus(count, "opus_encode_float")
        return Array(packet.prefix(Int(count)))
    }
}

/// Throws an ``AudioError`` naming the libopus function when `status` is negative.
func checkOpus(_ status: Int32, _ function: StaticString) throws(AudioError) {
    guard status < 0 else { return }
    throw opusError(status, function)
}

func opusError(_ status: Int32, _ function: StaticString) -> AudioError {
    let text = opus_strerror(status).map { String(cString: $0) } ?? "error \(status)"
    return AudioError(
        status == OPUS_BAD_ARG ? .invalidArgument : .failed, "\(function) failed: \(text)",
        underlying: LibraryCallError(function: "\(function)", code: status, text: text))
}
