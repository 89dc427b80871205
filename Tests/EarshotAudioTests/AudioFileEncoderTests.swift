import EarshotAudio
import Foundation
import Testing

/// MP3, AAC and FLAC written with ffmpeg's encoders (what `/v1/audio/speech` answers besides WAV, PCM and Opus):
/// ffmpeg's own demuxers read each back with the codec, length and sound that went in.
@Suite struct AudioFileEncoderTests {
    /// Two seconds of a 440 Hz tone at 24 kHz, at half scale.
    static let tone: [Float] = (0..<48_000).map { 0.5 * sin(2 * .pi * 440 * Float($0) / 24_000) }

    @Test(arguments: AudioFileEncoder.Format.allCases)
    func aToneComesBackWithItsLengthAndLoudness(format: AudioFileEncoder.Format) throws {
        let bytes = try AudioFileEncoder.encode(Self.tone, sampleRate: 24_000, as: format)
        switch format {
        case .mp3: #expect(bytes.starts(with: Array("ID3".utf8)) || (bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0))
        case .aac: #expect(bytes[0] == 0xFF && bytes[1] & 0xF6 == 0xF0, "an ADTS sync word")
        case .flac: #expect(bytes.starts(with: Array("fLaC".utf8)))
        }
        if format != .flac {
            #expect(bytes.count < 20_000, "64 kb/s for 2 s is about 16 KB: \(bytes.count)")
        }
        let directory = try TemporaryDirectory()
        let file = directory.file("tone.\(format.rawValue)")
        try Data(bytes).write(to: file)
        let decoder = try AudioDecoder(contentsOf: file)
        #expect(decoder.info.codec == (format == .mp3 ? "mp3" : format.rawValue), "\(decoder.info.codec)")
        let decoded = try decoder.decodeAll()
        // Encoder delay and padding (MP3, AAC) add a few tens of milliseconds at most.
        #expect(abs(Double(decoded.count) / 16_000 - 2) < 0.1, "\(decoded.count) samples at 16 kHz")
        let rms = Signals.rms(decoded[4_000..<28_000])
        #expect(abs(rms - 0.5 / 2.0.squareRoot()) < 0.05, "RMS \(rms)")
    }

    @Test func aRateTheCodecDoesNotTakeIsAClearError() {
        let error = #expect(throws: AudioError.self) {
            try AudioFileEncoder.encode(Self.tone, sampleRate: 7_000, as: .mp3)
        }
        #expect(error?.message.contains("7000 Hz") == true, "\(error?.message ?? "")")
    }
}
