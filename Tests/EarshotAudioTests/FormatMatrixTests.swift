import EarshotAudio
import EarshotTestSupport
import Foundation
import Testing

/// One encoding of jfk.wav and how close its decoded samples must stay to the original.
struct Variant: Sendable, CustomTestStringConvertible {
    enum Fidelity: Sendable {
        /// Lossless: every sample within `tolerance` of the original.
        case exact(tolerance: Float)
        /// Lossy or resampled: aligned within `maxLagMilliseconds`, at least `minimumSNR` dB.
        case lossy(minimumSNR: Double, maxLagMilliseconds: Int)
        /// Band-limited (8 kHz): the waveform still correlates above `minimumCorrelation` at lag ≈ 0.
        case bandLimited(minimumCorrelation: Double)
    }

    let name: String
    let fileName: String
    let options: [String]
    let codec: String
    let sampleRate: Int
    let channels: Int
    let fidelity: Fidelity
    /// Allowed difference between the decoded length and the original 11.000 s.
    var lengthToleranceMilliseconds = 3

    var testDescription: String { name }

    /// Stereo with the mono signal copied to both channels at full level (`-ac 2` would scale it by 1/√2).
    static let duplicate = "pan=stereo|c0=c0|c1=c0"

    static let all: [Variant] = [
        Variant(
            name: "wav s16", fileName: "s16.wav", options: ["-c:a", "pcm_s16le"], codec: "pcm_s16le",
            sampleRate: 16_000, channels: 1, fidelity: .exact(tolerance: 0)),
        Variant(
            name: "wav s24", fileName: "s24.wav", options: ["-c:a", "pcm_s24le"], codec: "pcm_s24le",
            sampleRate: 16_000, channels: 1, fidelity: .exact(tolerance: 1e-6)),
        Variant(
            name: "wav s32", fileName: "s32.wav", options: ["-c:a", "pcm_s32le"], codec: "pcm_s32le",
            sampleRate: 16_000, channels: 1, fidelity: .exact(tolerance: 1e-6)),
        Variant(
            name: "wav f32", fileName: "f32.wav", options: ["-c:a", "pcm_f32le"], codec: "pcm_f32le",
            sampleRate: 16_000, channels: 1, fidelity: .exact(tolerance: 1e-6)),
        Variant(
            name: "wav u8", fileName: "u8.wav", options: ["-c:a", "pcm_u8"], codec: "pcm_u8",
            sampleRate: 16_000, channels: 1, fidelity: .exact(tolerance: 1 / 128 + 1e-4)),
        Variant(
            name: "wav 8 kHz stereo", fileName: "8k-stereo.wav",
            options: ["-ar", "8000", "-af", duplicate, "-c:a", "pcm_s16le"],
            codec: "pcm_s16le", sampleRate: 8_000, channels: 2, fidelity: .bandLimited(minimumCorrelation: 0.9)),
        Variant(
            name: "wav 44.1 kHz stereo", fileName: "44k-stereo.wav",
            options: ["-ar", "44100", "-af", duplicate, "-c:a", "pcm_s16le"], codec: "pcm_s16le", sampleRate: 44_100,
            channels: 2, fidelity: .lossy(minimumSNR: 25, maxLagMilliseconds: 0)),
        Variant(
            name: "flac", fileName: "jfk.flac", options: ["-c:a", "flac"], codec: "flac", sampleRate: 16_000,
            channels: 1, fidelity: .exact(tolerance: 0)),
        Variant(
            name: "mp3", fileName: "jfk.mp3", options: ["-c:a", "libmp3lame", "-b:a", "64k"], codec: "mp3",
            sampleRate: 16_000, channels: 1, fidelity: .lossy(minimumSNR: 18, maxLagMilliseconds: 1)),
        Variant(
            name: "mp3 44.1 kHz stereo", fileName: "jfk-44k.mp3",
            options: ["-ar", "44100", "-af", duplicate, "-c:a", "libmp3lame", "-b:a", "128k"], codec: "mp3",
            sampleRate: 44_100, channels: 2, fidelity: .lossy(minimumSNR: 18, maxLagMilliseconds: 1)),
        Variant(
            name: "m4a aac", fileName: "jfk.m4a", options: ["-c:a", "aac", "-b:a", "64k"], codec: "aac",
            sampleRate: 16_000, channels: 1, fidelity: .lossy(minimumSNR: 30, maxLagMilliseconds: 1),
            lengthToleranceMilliseconds: 65),
        Variant(
            name: "ogg opus", fileName: "jfk.opus.ogg", options: ["-c:a", "libopus", "-b:a", "32k"], codec: "opus",
            sampleRate: 48_000, channels: 1, fidelity: .lossy(minimumSNR: 18, maxLagMilliseconds: 1)),
        Variant(
            name: "webm opus", fileName: "jfk.webm", options: ["-c:a", "libopus", "-b:a", "32k"], codec: "opus",
            sampleRate: 48_000, channels: 1, fidelity: .lossy(minimumSNR: 18, maxLagMilliseconds: 1)),
        Variant(
            name: "ogg vorbis", fileName: "jfk.vorbis.ogg", options: ["-c:a", "libvorbis", "-q:a", "4"],
            codec: "vorbis", sampleRate: 16_000, channels: 1, fidelity: .lossy(minimumSNR: 15, maxLagMilliseconds: 1)),
    ]
}

@Suite("Every input format decodes to the same 16 kHz mono samples")
struct FormatMatrixTests {
    @Test(arguments: Variant.all)
    func decodesLikeTheOriginal(_ variant: Variant) throws {
        let reference = try TestAudio.jfkReference()
        let directory = try TemporaryDirectory()
        let file = directory.file(variant.fileName)
        try FFmpeg.convert(try TestAudio.jfk(), to: file, variant.options)

        let decoder = try AudioDecoder(contentsOf: file)
        #expect(decoder.info.codec == variant.codec)
        #expect(decoder.info.sampleRate == variant.sampleRate)
        #expect(decoder.info.channels == variant.channels)
        let samples = try decoder.decodeAll()

        let lengthError = abs(samples.count - reference.count) * 1000 / AudioDecoder.sampleRate
        #expect(
            lengthError <= variant.lengthToleranceMilliseconds,
            "decoded \(samples.count) samples, the original has \(reference.count)")
        if let declared = decoder.info.durationMilliseconds {
            // MP3 headers count the encoder delay and padding too, up to 160 ms at 8 kHz.
            #expect(abs(declared - 11_000) <= 200, "declared duration \(declared) ms")
        }
        #expect(samples.allSatisfy { $0.isFinite && abs($0) <= 1.0001 })

        switch variant.fidelity {
        case .exact(let tolerance):
            #expect(samples.count == reference.count)
            #expect(Signals.maxAbsoluteDifference(samples, reference) <= tolerance)
        case .lossy(let minimumSNR, let maxLag):
            let aligned = Signals.alignment(reference: reference, candidate: samples, maxLag: 160)
            let snr = Signals.snr(reference: reference, candidate: samples, lag: aligned.lag)
            #expect(abs(aligned.lag) <= maxLag * 16, "decoded audio is shifted by \(aligned.lag) samples")
            #expect(snr >= minimumSNR, "SNR \(snr) dB at lag \(aligned.lag)")
        case .bandLimited(let minimumCorrelation):
            let aligned = Signals.alignment(reference: reference, candidate: samples, maxLag: 160)
            #expect(abs(aligned.lag) <= 16)
            #expect(aligned.correlation >= minimumCorrelation)
        }
    }
}
