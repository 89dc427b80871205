public import Foundation

/// Reading the audio synthesizers return: 16-bit little-endian PCM, bare or in a WAV file.
///
/// WAV files written to a pipe (espeak-ng's `--stdout`) cannot know their length and carry placeholder sizes
/// (`0x7FFFF000`); the data chunk is therefore read to the end of the bytes present, never past them.
public enum PCM16 {
    /// Samples of bare PCM16 little-endian mono (an odd trailing byte is dropped).
    public static func samples(_ bytes: Data) -> [Float] {
        bytes.withUnsafeBytes { raw in samples(raw, from: 0, count: raw.count / 2, stride: 2) }
    }

    /// `count` samples of 16-bit little-endian PCM starting at byte `offset`, one every `stride` bytes.
    static func samples(_ raw: UnsafeRawBufferPointer, from offset: Int, count: Int, stride: Int) -> [Float] {
        [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count {
                let value = Int16(
                    littleEndian: raw.loadUnaligned(fromByteOffset: offset + index * stride, as: Int16.self))
                buffer[index] = Float(value) / 32_768
            }
            initialized = count
        }
    }

    /// Little-endian 16-bit bytes of `samples` (clamped to [-1, 1)).
    public static func bytes(_ samples: [Float]) -> Data {
        let values = [Int16](unsafeUninitializedCapacity: samples.count) { buffer, initialized in
            samples.withUnsafeBufferPointer { source in
                for index in source.indices {
                    buffer[index] = Int16(max(-32_768, min(32_767, (source[index] * 32_768).rounded()))).littleEndian
                }
            }
            initialized = samples.count
        }
        return values.withUnsafeBytes { Data($0) }
    }

    /// True when `bytes` start like a RIFF/WAVE file.
    public static func isWAV(_ bytes: Data) -> Bool {
        bytes.count >= 12 && bytes.prefix(4).elementsEqual("RIFF".utf8)
            && bytes.dropFirst(8).prefix(4).elementsEqual("WAVE".utf8)
    }

    /// The speech in a WAV file of 16-bit integer PCM, mono or the first channel of several.
    ///
    /// - Throws: ``VoiceError/Code/invalidResponse`` naming what is wrong (not RIFF/WAVE, no `fmt ` or `data`
    ///   chunk, another encoding than 16-bit PCM).
    public static func wav(_ bytes: Data) throws(VoiceError) -> SynthesizedSpeech {
        let data = [UInt8](bytes)
        guard isWAV(bytes) else { throw VoiceError(.invalidResponse, "the audio is not a RIFF/WAVE file") }
        func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        var offset = 12
        var format: (encoding: Int, channels: Int, rate: Int, bits: Int)?
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt " {
                guard size >= 16, body + 16 <= data.count else {
                    throw VoiceError(.invalidResponse, "the WAV file's fmt chunk is cut short")
                }
                format = (u16(body), u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                guard let format else { throw VoiceError(.invalidResponse, "the WAV file has data before its format") }
                // 1 = PCM, 0xFFFE = WAVE_FORMAT_EXTENSIBLE (PCM16 in practice when bits = 16).
                guard [1, 0xFFFE].contains(format.encoding), format.bits == 16, format.channels >= 1,
                    format.rate > 0
                else {
                    throw VoiceError(
                        .invalidResponse,
                        "the WAV file holds \(format.bits)-bit audio of encoding \(format.encoding); "
                            + "Earshot reads 16-bit integer PCM")
                }
                let end = min(data.count, body + size)
                let frame = 2 * format.channels
                let samples = data.withUnsafeBytes { raw in
                    Self.samples(raw, from: body, count: max(0, end - body) / frame, stride: frame)
                }
                return SynthesizedSpeech(samples: samples, sampleRate: format.rate)
            }
            offset = body + size + (size & 1)
        }
        throw VoiceError(.invalidResponse, "the WAV file has no data chunk")
    }
}
