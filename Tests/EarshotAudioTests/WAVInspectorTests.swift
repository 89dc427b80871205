import EarshotAudio
import EarshotTestSupport
import Foundation
import Testing

/// Hand-built RIFF files for header edge cases.
enum RIFF {
    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    static func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
        Array(id.utf8) + le(UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
    }

    static func fmt(
        tag: UInt16 = 1, channels: Int = 1, rate: Int = 16_000, bits: Int = 16, extensibleSubformat: UInt16? = nil
    )
        -> [UInt8]
    {
        let align = channels * bits / 8
        var body =
            le(extensibleSubformat == nil ? tag : 0xFFFE) + le(UInt16(channels)) + le(UInt32(rate))
            + le(UInt32(rate * align)) + le(UInt16(align)) + le(UInt16(bits))
        if let extensibleSubformat {
            // cbSize 22, valid bits, channel mask, sub-format GUID (tag + the KSDATAFORMAT tail).
            body += le(UInt16(22)) + le(UInt16(bits)) + le(UInt32(4)) + le(extensibleSubformat)
            body += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        return chunk("fmt ", body)
    }

    static func wave(_ chunks: [UInt8]...) -> [UInt8] {
        let body = Array("WAVE".utf8) + chunks.flatMap { $0 }
        return Array("RIFF".utf8) + le(UInt32(body.count)) + body
    }

    static func silence(frames: Int, bytesPerFrame: Int = 2) -> [UInt8] {
        [UInt8](repeating: 0, count: frames * bytesPerFrame)
    }
}

@Suite("WAV compliance tiers")
struct WAVInspectorTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    func inspect(_ bytes: [UInt8], _ name: String = "test.wav") throws -> WAVInspection {
        let url = directory.file(name)
        try Data(bytes).write(to: url)
        return try WAVInspector.inspect(url)
    }

    func inspectVariant(_ options: [String], _ name: String = "variant.wav") throws -> WAVInspection {
        let url = directory.file(name)
        try FFmpeg.convert(try TestAudio.jfk(), to: url, options)
        return try WAVInspector.inspect(url)
    }

    @Test("jfk.wav (16 kHz, 16-bit, mono PCM, with a LIST chunk) is fully compliant")
    func compliant() throws {
        let inspection = try WAVInspector.inspect(try TestAudio.jfk())
        #expect(inspection.tier == .compliant)
        let format = try #require(inspection.format)
        #expect(format.frameCount == 176_000)
        #expect(format.duration == .seconds(11))
        #expect(format.dataOffset == 78)
    }

    @Test("extensible PCM, odd-sized chunks with pad bytes and unknown chunks are parsed")
    func headerVariations() throws {
        let extensible = try inspect(
            RIFF.wave(
                RIFF.chunk("LIST", Array("INFOISFT\u{5}\0\0\0Lavf\0".utf8)), RIFF.chunk("odd ", [1, 2, 3]),
                RIFF.fmt(extensibleSubformat: 1), RIFF.chunk("fact", RIFF.le(UInt32(100))),
                RIFF.chunk("data", RIFF.silence(frames: 100))))
        #expect(extensible.tier == .compliant)
        #expect(extensible.format?.formatTag == 0xFFFE)
        #expect(extensible.format?.frameCount == 100)
        // An odd-sized data chunk at the very end of the file (no pad byte) is fine too.
        let oddData = RIFF.wave(RIFF.fmt(channels: 1, rate: 16_000, bits: 8), RIFF.chunk("data", [128, 128, 128]))
        let inspection = try inspect(Array(oddData.dropLast()))
        #expect(inspection.isAccepted)
        #expect(inspection.format?.frameCount == 3)
    }

    @Test("PCM at another rate, depth or channel count is convertible, with one warning per difference")
    func mismatched() throws {
        let stereo8k = try inspectVariant(["-ar", "8000", "-ac", "2", "-c:a", "pcm_s16le"])
        #expect(
            stereo8k.tier
                == .convertible(warnings: [
                    "sample rate is 8000 Hz, not 16000 Hz: it will be resampled",
                    "2 channels, not mono: they will be averaged into one",
                ]))
        let deep = try inspectVariant(["-c:a", "pcm_s24le"])
        #expect(deep.warnings == ["samples are 24-bit, not 16-bit: they will be converted"])
        let unsigned = try inspectVariant(["-c:a", "pcm_u8"])
        #expect(unsigned.warnings == ["samples are 8-bit, not 16-bit: they will be converted"])
        let extensibleDeep = try inspect(
            RIFF.wave(
                RIFF.fmt(rate: 48_000, bits: 32, extensibleSubformat: 1),
                RIFF.chunk("data", RIFF.silence(frames: 10, bytesPerFrame: 4))))
        #expect(extensibleDeep.warnings.count == 2)
    }

    @Test("IEEE-float WAV (format 3, and extensible float) is convertible with a float warning")
    func ieeeFloat() throws {
        let float = try inspectVariant(["-c:a", "pcm_f32le"])
        #expect(float.format?.encodingTag == 3)
        #expect(
            float.warnings == [
                "samples are 32-bit IEEE float (format 3), not 16-bit integer PCM: they will be converted"
            ])
        let extensible = try inspect(
            RIFF.wave(
                RIFF.fmt(bits: 32, extensibleSubformat: 3),
                RIFF.chunk("data", RIFF.silence(frames: 10, bytesPerFrame: 4))))
        #expect(extensible.format?.isFloat == true)
        #expect(extensible.warnings.count == 1)
        // Earshot converts it: the decoder reads the same samples as the 16-bit original.
        let decoded = try AudioDecoder(contentsOf: directory.file("variant.wav")).decodeAll()
        #expect(Signals.maxAbsoluteDifference(decoded, try TestAudio.jfkReference()) < 1e-6)
    }

    @Test(
        "compressed WAVs are refused with the exact conversion command",
        arguments: [
            ("pcm_mulaw", "µ-law", "0x7"), ("pcm_alaw", "A-law", "0x6"), ("adpcm_ima_wav", "IMA ADPCM", "0x11"),
            ("adpcm_ms", "Microsoft ADPCM", "0x2"), ("libmp3lame", "MP3", "0x55"),
        ])
    func compressed(codec: String, name: String, tag: String) throws {
        let url = directory.file("\(codec).wav")
        try FFmpeg.convert(try TestAudio.jfk(), to: url, ["-c:a", codec, "-f", "wav"])
        let inspection = try WAVInspector.inspect(url)
        #expect(
            inspection.tier
                == .refused(
                    reason:
                        "compressed WAV (\(name), format tag \(tag.uppercased().replacingOccurrences(of: "0X", with: "0x"))) is not PCM",
                    conversionCommand:
                        "ffmpeg -i \(url.path) -ar 16000 -ac 1 -c:a pcm_s16le \(directory.url.path)/\(codec)-16k.wav"))
    }

    @Test("broken and foreign files are refused with a reason that says what is wrong")
    func refused() throws {
        let good = RIFF.wave(RIFF.fmt(), RIFF.chunk("data", RIFF.silence(frames: 1_000)))
        let cases: [(String, [UInt8], String)] = [
            ("empty", [], "the file is empty (0 bytes)"),
            (
                "text", Array("hello, this is not audio\n".utf8),
                "not a WAV file: it does not start with a RIFF/WAVE header"
            ),
            (
                "mp3", Array("ID3\u{4}\0\0\0\0\0\0".utf8),
                "not a WAV file: it does not start with a RIFF/WAVE header (it looks like MP3 audio)"
            ),
            ("riff-cut", Array(good.prefix(8)), "truncated header: the file ends inside the RIFF header"),
            ("fmt-cut", Array(good.prefix(30)), "truncated header: the file ends inside the fmt chunk"),
            (
                "no-fmt", RIFF.wave(RIFF.chunk("data", RIFF.silence(frames: 10))),
                "the data chunk comes before any fmt chunk"
            ),
            ("no-data", RIFF.wave(RIFF.fmt()), "no data chunk: the file ends after the header chunks"),
            (
                "data-beyond", Array(good.prefix(44 + 500)),
                "the data chunk declares 2000 bytes but only 500 follow: the file is truncated"
            ),
            (
                "zero-channels", RIFF.wave(RIFF.fmt(channels: 0), RIFF.chunk("data", [0, 0])),
                "the fmt chunk declares 0 channels"
            ),
            ("no-samples", RIFF.wave(RIFF.fmt(), RIFF.chunk("data", [])), "the data chunk holds no samples"),
        ]
        for (name, bytes, reason) in cases {
            let inspection = try inspect(bytes, "\(name).wav")
            #expect(
                inspection.tier
                    == .refused(
                        reason: reason,
                        conversionCommand: ConversionCommand.toCompliantWAV(input: directory.file("\(name).wav").path)),
                "\(name)")
        }
        var unset = good
        unset.replaceSubrange(40..<44, with: RIFF.le(UInt32(0xFFFF_FFFF)))
        let unfinalised = try inspect(unset, "unset.wav")
        #expect(!unfinalised.isAccepted)
        #expect(
            unfinalised.tier
                == .refused(
                    reason:
                        "the data chunk size is not set (the recording was not finalised); 2000 bytes of samples follow the header",
                    conversionCommand: ConversionCommand.toCompliantWAV(input: directory.file("unset.wav").path)))
    }

    @Test("missing files throw notFound instead of returning a tier")
    func missing() {
        #expect { try WAVInspector.inspect(directory.file("nope.wav")) } throws: {
            ($0 as? AudioError)?.code == .notFound
        }
        #expect { try WAVInspector.inspect(directory.url) } throws: { ($0 as? AudioError)?.code == .notFound }
    }

    @Test("conversion commands quote paths a shell would split")
    func quoting() {
        #expect(
            ConversionCommand.toCompliantWAV(input: "/tmp/my memo's.m4a")
                == "ffmpeg -i '/tmp/my memo'\\''s.m4a' -ar 16000 -ac 1 -c:a pcm_s16le '/tmp/my memo'\\''s-16k.wav'")
        #expect(
            ConversionCommand.toCompliantWAV(input: "in.wav", output: "out.wav")
                == "ffmpeg -i in.wav -ar 16000 -ac 1 -c:a pcm_s16le out.wav")
    }

    @Test("WAVWriter writes a compliant file that decodes back bit for bit, sizes fixed at close")
    func writerRoundTrip() throws {
        let reference = try TestAudio.jfkReference()
        let url = directory.file("written.wav")
        let writer = try WAVWriter(url: url)
        for start in stride(from: 0, to: reference.count, by: 7_777) {
            try writer.write(reference[start..<min(reference.count, start + 7_777)])
        }
        #expect(writer.samplesWritten == reference.count)
        try writer.close()
        try writer.close()
        #expect(throws: AudioError.self) { try writer.write([0]) }
        let inspection = try WAVInspector.inspect(url)
        #expect(inspection.tier == .compliant)
        #expect(inspection.format?.frameCount == Int64(reference.count))
        #expect(try AudioDecoder(contentsOf: url).decodeAll() == reference)
        // Out-of-range and NaN input is clipped, never wrapped.
        let clipped = directory.file("clipped.wav")
        let clipping = try WAVWriter(url: clipped)
        try clipping.write([2, -2, .nan, 1, -1])
        try clipping.close()
        #expect(try AudioDecoder(contentsOf: clipped).decodeAll() == [32_767 / 32_768, -1, 0, 32_767 / 32_768, -1])
    }
}
