import Dispatch
import EarshotAudio
import EarshotVoice

/// Synthesized speech in the formats `POST /v1/audio/speech` serves, all at OpenAI's 24 kHz mono: bare PCM16
/// little-endian, a 16-bit PCM WAV file, Ogg Opus (EarshotAudio's writer, 32 kb/s), and MP3, AAC (ADTS) or FLAC
/// through ffmpeg's encoders (``AudioFileEncoder``).
enum SpeechEncoding {
    /// The rate of every format served (OpenAI's).
    static let sampleRate = 24_000

    /// `speech` resampled to ``sampleRate`` (libswresample) and encoded as `format`.
    ///
    /// - Throws: ``AudioError`` when resampling or encoding fails.
    static func encode(_ speech: SynthesizedSpeech, as format: OpenAISpeechRequest.Format) throws -> [UInt8] {
        let samples = try resampled(speech)
        switch format {
        case .pcm:
            return [UInt8](PCM16.bytes(samples))
        case .wav:
            return wavHeader(dataBytes: samples.count * 2) + [UInt8](PCM16.bytes(samples))
        case .opus:
            var configuration = OggOpusStream.Configuration()
            configuration.encoder.sampleRate = sampleRate
            configuration.encoder.bitrate = 32_000
            let stream = try OggOpusStream(configuration: configuration)
            return try stream.start() + stream.append(samples) + stream.finish()
        case .mp3: return try AudioFileEncoder.encode(samples, sampleRate: sampleRate, as: .mp3)
        case .aac: return try AudioFileEncoder.encode(samples, sampleRate: sampleRate, as: .aac)
        case .flac: return try AudioFileEncoder.encode(samples, sampleRate: sampleRate, as: .flac)
        }
    }

    /// ``encode(_:as:)`` on a thread of its own (minutes of speech take a second or more to resample and compress),
    /// never on Swift's cooperative pool.
    static func encodeOffPool(_ speech: SynthesizedSpeech, as format: OpenAISpeechRequest.Format) async throws
        -> [UInt8]
    {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "earshot.speech.encoding").async {
                continuation.resume(with: Result { try encode(speech, as: format) })
            }
        }
    }

    /// The samples at ``sampleRate``.
    static func resampled(_ speech: SynthesizedSpeech) throws -> [Float] {
        guard speech.sampleRate != sampleRate else { return speech.samples }
        let resampler = try PCMResampler(inputRate: speech.sampleRate, outputRate: sampleRate)
        return try resampler.convert([UInt8](PCM16.bytes(speech.samples))) + resampler.flush()
    }

    /// A 44-byte header of a mono 16-bit PCM WAV file at ``sampleRate`` holding `dataBytes`.
    static func wavHeader(dataBytes: Int) -> [UInt8] {
        var header: [UInt8] = []
        func append(_ text: String) { header += Array(text.utf8) }
        func append32(_ value: Int) {
            for shift in stride(from: 0, to: 32, by: 8) { header.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
        func append16(_ value: Int) {
            header += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
        }
        append("RIFF")
        append32(36 + dataBytes)
        append("WAVEfmt ")
        append32(16)
        append16(1)  // PCM
        append16(1)  // mono
        append32(sampleRate)
        append32(sampleRate * 2)  // bytes per second
        append16(2)  // block align
        append16(16)  // bits per sample
        append("data")
        append32(dataBytes)
        return header
    }
}
