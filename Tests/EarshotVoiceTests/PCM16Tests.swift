import EarshotVoice
import Foundation
import Testing

/// Reading what engines and providers send: WAV files with streaming placeholder sizes, bare PCM16.
@Suite struct PCM16Tests {
    /// A WAV header as espeak-ng writes it to a pipe: RIFF and data sizes are placeholders past the real end.
    static func streamedWAV(rate: Int, samples: [Int16]) -> Data {
        var data = Data("RIFF".utf8)
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        u32(0x7FFF_F024)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(1)
        u16(1)
        u32(UInt32(rate))
        u32(UInt32(rate * 2))
        u16(2)
        u16(16)
        data.append(contentsOf: Array("data".utf8))
        u32(0x7FFF_F000)
        for sample in samples { u16(UInt16(bitPattern: sample)) }
        return data
    }

    @Test func aStreamedWAVIsReadToTheEndOfItsBytes() throws {
        let speech = try PCM16.wav(Self.streamedWAV(rate: 22_050, samples: [0, 16_384, -32_768, 32_767]))
        #expect(speech.sampleRate == 22_050)
        #expect(speech.samples == [0, 0.5, -1, Float(32_767) / 32_768])
    }

    @Test func bytesAndSamplesRoundTrip() {
        let samples: [Float] = [0, 0.25, -0.5, 0.999]
        let back = PCM16.samples(PCM16.bytes(samples))
        #expect(zip(samples, back).allSatisfy { abs($0 - $1) < 1e-4 })
        #expect(PCM16.bytes([2, -2]) == Data([0xFF, 0x7F, 0x00, 0x80]), "clamped to the 16-bit range")
    }

    @Test func notAudioIsAClearError() {
        let notRIFF = #expect(throws: VoiceError.self) { try PCM16.wav(Data("{\"error\": 1}".utf8)) }
        #expect(notRIFF?.code == .invalidResponse)
        var float = Self.streamedWAV(rate: 24_000, samples: [1, 2])
        float[34] = 32  // 32 bits per sample
        let wrongDepth = #expect(throws: VoiceError.self) { try PCM16.wav(float) }
        #expect(wrongDepth?.message.contains("16-bit") == true)
    }
}
