internal import COpus

/// Decodes Opus packets to mono 16-bit samples with libopus: live Opus input (``OggOpusDecoder``). Any Opus stream
/// decodes at any of Opus's rates, whatever rate it was encoded at; a stereo stream is mixed down to mono by libopus.
/// Not thread-safe: one decoder per stream.
public final class OpusDecoder {
    /// The output sample rate: 8, 12, 16, 24 or 48 kHz.
    public let sampleRate: Int
    /// The most samples one packet can decode to (120 ms).
    private var maximumFrame: Int { sampleRate * 120 / 1_000 }
    private let decoder: OpaquePointer

    /// - Throws: ``AudioError`` `.invalidArgument` for a rate Opus does not decode to; `.failed` if libopus cannot
    ///   create the decoder.
    public init(sampleRate: Int = 16_000) throws(AudioError) {
        guard [8_000, 12_000, 16_000, 24_000, 48_000].contains(sampleRate) else {
            throw AudioError(.invalidArgument, "Opus decodes to 8, 12, 16, 24 or 48 kHz, not \(sampleRate) Hz")
        }
        var status: Int32 = 0
        guard let decoder = opus_decoder_create(opus_int32(sampleRate), 1, &status), status == OPUS_OK else {
            throw opusError(status, "opus_decoder_create")
        }
        self.decoder = decoder
        self.sampleRate = sampleRate
    }

    deinit {
        opus_decoder_destroy(decoder)
    }

    /// The samples of one packet.
    ///
    /// - Throws: ``AudioError`` `.corrupted` for a packet libopus refuses (damaged, or not Opus).
    public func decode(_ packet: ArraySlice<UInt8>) throws(AudioError) -> [Int16] {
        var samples = [Int16](repeating: 0, count: maximumFrame)
        let count = packet.withUnsafeBufferPointer { input in
            samples.withUnsafeMutableBufferPointer { output in
                opus_decode(
                    decoder, input.baseAddress, opus_int32(input.count), output.baseAddress!, Int32(output.count), 0)
            }
        }
        guard count >= 0 else {
            let error = opusError(count, "opus_decode")
            throw AudioError(.corrupted, "an Opus packet could not be decoded (\(error.message))", underlying: error)
        }
        samples.removeSubrange(Int(count)...)
        return samples
    }
}
