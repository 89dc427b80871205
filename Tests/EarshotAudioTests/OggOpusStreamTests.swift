import EarshotAudio
import Foundation
import Testing

/// What a recorder device stores: Opus in Ogg, written page by page. FFmpeg (an independent decoder) must read it
/// back sample-exact in length and faithful in sound, also when the recording was cut off mid-stream.
@Suite struct OggOpusStreamTests {
    /// Encodes `samples` in `pieces` appends and returns the file's bytes.
    func encode(_ samples: [Float], pieces: Int = 7, configuration: OggOpusStream.Configuration = .init()) throws
        -> (bytes: [UInt8], stream: OggOpusStream)
    {
        let stream = try OggOpusStream(configuration: configuration)
        var bytes = stream.start()
        let step = max(samples.count / pieces, 1)
        for start in stride(from: 0, to: samples.count, by: step) {
            bytes += try stream.append(Array(samples[start..<min(start + step, samples.count)]))
        }
        bytes += try stream.finish()
        return (bytes, stream)
    }

    func decode(_ bytes: [UInt8], in directory: TemporaryDirectory, name: String = "recording.ogg") throws -> [Float] {
        let file = directory.file(name)
        try Data(bytes).write(to: file)
        let decoder = try AudioDecoder(contentsOf: file)
        #expect(decoder.info.codec == "opus")
        return try decoder.decodeAll()
    }

    @Test func speechComesBackWithItsExactLengthAndGoodFidelity() throws {
        let reference = try TestAudio.jfkReference()
        let (bytes, stream) = try encode(reference)
        #expect(stream.durationMs == reference.count / 16)
        // 24 kb/s: about 3 KB per second plus page overhead.
        #expect(bytes.count < reference.count / 16_000 * 3_400 + 4_000, "\(bytes.count) bytes")
        let directory = try TemporaryDirectory()
        let decoded = try decode(bytes, in: directory)
        #expect(decoded.count == reference.count, "the final granule position trims the last frame's padding")
        let aligned = Signals.alignment(reference: reference, candidate: decoded, maxLag: 160)
        #expect(abs(aligned.lag) <= 16, "pre-skip honoured: lag \(aligned.lag)")
        #expect(Signals.snr(reference: reference, candidate: decoded, lag: aligned.lag) >= 12)
    }

    @Test func aRecordingCutOffAtAPageBoundaryIsStillAudio() throws {
        let reference = try TestAudio.jfkReference()
        let stream = try OggOpusStream()
        var bytes = stream.start()
        // Power lost after four seconds: everything written so far is whole pages.
        bytes += try stream.append(Array(reference.prefix(4 * 16_000)))
        let directory = try TemporaryDirectory()
        let decoded = try decode(bytes, in: directory)
        #expect(decoded.count >= 3 * 16_000, "at least the pages completed before the cut: \(decoded.count)")
        #expect(decoded.count <= 4 * 16_000)
    }

    @Test func silenceAndTinyRecordingsAreValidFiles() throws {
        let directory = try TemporaryDirectory()
        // From 10 ms (below that FFmpeg's resampler has nothing to return for a few 48 kHz samples).
        for count in [160, 319, 320, 321, 16_000, 16_000 * 3 + 17] {
            let (bytes, _) = try encode([Float](repeating: 0, count: count), pieces: 3)
            let decoded = try? decode(bytes, in: directory, name: "s\(count).ogg").count
            #expect(decoded == count, "\(count) samples")
        }
    }

    @Test func unsupportedSettingsAreRefused() {
        var configuration = OggOpusStream.Configuration()
        configuration.encoder.sampleRate = 44_100
        #expect(throws: AudioError.self) { try OggOpusStream(configuration: configuration) }
        configuration.encoder.sampleRate = 16_000
        configuration.encoder.frameMilliseconds = 25
        #expect(throws: AudioError.self) { try OggOpusStream(configuration: configuration) }
        #expect(throws: AudioError.self) { try OpusEncoder().encode([0, 0]) }
    }
}

/// Recovering what a recorder had written when it lost power.
@Suite struct OggOpusScanTests {
    @Test func aFinishedFileScansWhole() throws {
        let stream = try OggOpusStream()
        var bytes = stream.start()
        bytes += try stream.append([Float](repeating: 0.1, count: 3 * 16_000 + 5))
        bytes += try stream.finish()
        #expect(OggOpusScan.scan(bytes) == OggOpusScan(validLength: bytes.count, durationMs: 3_000, ended: true))
    }

    @Test func aCutOffFileKeepsItsWholePagesAndTheyDecode() throws {
        let reference = try TestAudio.jfkReference()
        let stream = try OggOpusStream()
        var bytes = stream.start()
        bytes += try stream.append(Array(reference.prefix(5 * 16_000 + 100)))
        let pages = bytes.count
        bytes += try stream.append(Array(reference[(5 * 16_000 + 100)..<(6 * 16_000 + 900)]))
        let cut = Array(bytes.prefix(pages + 150))  // power lost mid-page
        let scan = try #require(OggOpusScan.scan(cut))
        #expect(scan.validLength == pages && !scan.ended)
        // Five seconds of whole pages, less the encoder's look-ahead (6.5 ms) still inside the last packet.
        #expect((4_990...5_000).contains(scan.durationMs), "\(scan.durationMs) ms")
        let directory = try TemporaryDirectory()
        let file = directory.file("kept.ogg")
        try Data(cut.prefix(scan.validLength)).write(to: file)
        #expect(try AudioDecoder(contentsOf: file).decodeAll().count >= 4 * 16_000)
    }

    @Test func aDamagedPageEndsTheScanAndNoHeaderMeansNothing() throws {
        let stream = try OggOpusStream()
        var bytes = stream.start()
        let headers = bytes.count
        bytes += try stream.append([Float](repeating: 0.1, count: 2 * 16_000))
        bytes[headers + 40] ^= 0xFF
        #expect(OggOpusScan.scan(bytes)?.validLength == headers)
        #expect(OggOpusScan.scan(Array(bytes.prefix(20))) == nil)
        #expect(OggOpusScan.scan(Array("RIFF....WAVE".utf8)) == nil)
    }
}
