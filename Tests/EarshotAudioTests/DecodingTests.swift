import EarshotAudio
import EarshotTestSupport
import Foundation
import Testing

@Suite("Decoding: info, downmix, raw PCM, pull and async APIs")
struct DecodingTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    @Test("info describes the native stream before decoding")
    func info() throws {
        let wav = try AudioDecoder(contentsOf: try TestAudio.jfk()).info
        #expect(wav.container == "wav")
        #expect(wav.codec == "pcm_s16le")
        #expect(wav.sampleRate == 16_000 && wav.channels == 1)
        #expect(wav.sampleFormat == "s16")
        #expect(wav.bitsPerSample == 16)
        #expect(wav.durationMilliseconds == 11_000)
        #expect(wav.bitRate == 256_000)

        let m4a = directory.file("jfk.m4a")
        try FFmpeg.convert(
            try TestAudio.jfk(), to: m4a, ["-ar", "44100", "-ac", "2", "-c:a", "aac", "-b:a", "96k"])
        let aac = try AudioDecoder(contentsOf: m4a).info
        #expect(aac.container.contains("m4a"))
        #expect(aac.codec == "aac")
        #expect(aac.sampleRate == 44_100 && aac.channels == 2)
        #expect(aac.bitsPerSample == nil)
        #expect(abs((aac.durationMilliseconds ?? 0) - 11_000) < 30)
        #expect(abs((aac.bitRate ?? 0) - 96_000) < 20_000)
    }

    @Test("channels are averaged: left = speech, right = silence decodes to half the speech")
    func averagingDownmix() throws {
        let url = directory.file("left-only.wav")
        try FFmpeg.convert(try TestAudio.jfk(), to: url, ["-af", "pan=stereo|c0=c0|c1=0*c0", "-c:a", "pcm_s16le"])
        let samples = try AudioDecoder(contentsOf: url).decodeAll()
        let reference = try TestAudio.jfkReference()
        #expect(samples.count == reference.count)
        #expect(Signals.maxAbsoluteDifference(samples, reference.map { $0 / 2 }) < 1e-6)
        // Opposite channels cancel: an average, not a power-preserving sum.
        let opposite = directory.file("opposite.wav")
        try FFmpeg.convert(
            try TestAudio.jfk(), to: opposite, ["-af", "pan=stereo|c0=c0|c1=-1*c0", "-c:a", "pcm_f32le"])
        #expect(Signals.rms(try AudioDecoder(contentsOf: opposite).decodeAll()) < 1e-6)
    }

    @Test("5.1 audio averages the five main channels and leaves out the LFE")
    func surroundDownmix() throws {
        let url = directory.file("surround.flac")
        let pan = "pan=5.1|FL=c0|FR=c0|FC=c0|LFE=c0|BL=c0|BR=c0"
        try FFmpeg.convert(try TestAudio.jfk(), to: url, ["-af", pan, "-c:a", "flac"])
        let decoder = try AudioDecoder(contentsOf: url)
        #expect(decoder.info.channels == 6)
        let samples = try decoder.decodeAll()
        #expect(Signals.maxAbsoluteDifference(samples, try TestAudio.jfkReference()) < 1e-4)
    }

    @Test("raw 16-bit PCM (goforward.raw) decodes with the declared layout")
    func rawPCM() throws {
        let url = try TestAudio.file("goforward.raw")
        let decoder = try AudioDecoder(rawPCM: url, sampleRate: 16_000, channels: 1, format: .s16le)
        #expect(decoder.info.codec == "pcm_s16le")
        let samples = try decoder.decodeAll()
        let bytes = Array(try Data(contentsOf: url))
        #expect(samples.count == bytes.count / 2)
        let direct = stride(from: 0, to: bytes.count - 1, by: 2).map {
            Float(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)) / 32_768
        }
        #expect(samples == direct)
        // The same bytes read as 8 kHz stereo: half the frames, resampled to 16 kHz → the same sample count.
        let stereo = try AudioDecoder(rawPCM: url, sampleRate: 8_000, channels: 2, format: .s16le)
        #expect(stereo.info.channels == 2)
        #expect(abs(try stereo.decodeAll().count - samples.count) <= 2)
    }

    @Test(
        "the setup's real recordings decode to the length their headers declare",
        arguments: ["cards/001.wav", "librivox/sense_and_sensibility_01_austen_64kb-0870.wav", "pyannote/sample.wav"])
    func realRecordings(path: String) throws {
        let decoder = try AudioDecoder(contentsOf: try TestAudio.file(path))
        let inspection = try WAVInspector.inspect(decoder.url)
        #expect(inspection.tier == .compliant)
        let samples = try decoder.decodeAll()
        #expect(Int64(samples.count) == inspection.format?.frameCount)
        #expect(decoder.report.isFinished && !decoder.report.isTruncated && decoder.report.damagedPackets == 0)
    }

    @Test("read(into:maxSamples:) returns full chunks until the end, then 0; the chunks join to decodeAll()")
    func pullAPI() throws {
        let whole = try AudioDecoder(contentsOf: try TestAudio.jfk()).decodeAll()
        let decoder = try AudioDecoder(contentsOf: try TestAudio.jfk())
        var joined: [Float] = []
        var counts: [Int] = []
        while true {
            let count = try decoder.read(into: &joined, maxSamples: 50_000)
            counts.append(count)
            if count == 0 { break }
        }
        #expect(counts == [50_000, 50_000, 50_000, 26_000, 0])
        #expect(joined == whole)
        #expect(decoder.report.samplesDelivered == 176_000)
        #expect(try decoder.read(into: &joined, maxSamples: 10) == 0)
        #expect(throws: AudioError.self) { try decoder.read(into: &joined, maxSamples: 0) }
    }

    @Test("async: open off the pool, chunks of 30 s by default, decodeAll async")
    func asyncAPI() async throws {
        let url = try TestAudio.file("pyannote/sample.wav")
        let decoder = try await AudioDecoder.open(contentsOf: url)
        var sizes: [Int] = []
        for try await chunk in decoder.chunks() { sizes.append(chunk.count) }
        #expect(sizes == [480_000])
        let small = try await AudioDecoder.open(contentsOf: url)
        var smallSizes: [Int] = []
        for try await chunk in small.chunks(maxSamples: 100_000) { smallSizes.append(chunk.count) }
        #expect(smallSizes == [100_000, 100_000, 100_000, 100_000, 80_000])
        let all = try await AudioDecoder.open(contentsOf: url).decodeAll()
        #expect(all.count == 480_000)
        await #expect(throws: AudioError.self) { try await AudioDecoder.open(contentsOf: directory.file("none.wav")) }
    }

    @Test("decodeAll() refuses audio longer than its cap, before decoding when the length is declared")
    func decodeAllCap() throws {
        let capped = AudioDecoder.Configuration(maxDecodeAllDuration: .seconds(5))
        let failure = #expect(throws: AudioError.self) {
            try AudioDecoder(contentsOf: try TestAudio.jfk(), configuration: capped).decodeAll()
        }
        #expect(failure?.code == .tooLong)
        #expect(failure?.message.contains("stream it with AudioDecoder.chunks(maxSamples:)") == true)
        // Raw PCM declares no reliable length: the cap applies while decoding.
        let raw = try AudioDecoder(
            rawPCM: try TestAudio.file("goforward.raw"), sampleRate: 16_000, channels: 1, format: .s16le,
            configuration: .init(maxDecodeAllDuration: .seconds(1)))
        #expect { try raw.decodeAll() } throws: { ($0 as? AudioError)?.code == .tooLong }
    }
}
