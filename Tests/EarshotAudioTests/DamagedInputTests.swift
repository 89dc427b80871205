import EarshotAudio
import EarshotTestSupport
import Foundation
import Testing

@Suite("Damaged, empty and foreign inputs give clear errors")
struct DamagedInputTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    /// jfk.wav encoded with `options` into `name`, returned as bytes.
    func encoded(_ name: String, _ options: [String]) throws -> [UInt8] {
        let url = directory.file("full-" + name)
        try FFmpeg.convert(try TestAudio.jfk(), to: url, options)
        return Array(try Data(contentsOf: url))
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> URL {
        let url = directory.file(name)
        try Data(bytes).write(to: url)
        return url
    }

    func error(decoding url: URL, configuration: AudioDecoder.Configuration = .init()) -> AudioError? {
        do {
            _ = try AudioDecoder(contentsOf: url, configuration: configuration).decodeAll()
            return nil
        } catch {
            return error
        }
    }

    @Test("a missing file, a directory and a zero-byte file")
    func missingAndEmpty() throws {
        let missing = error(decoding: directory.file("missing.mp3"))
        #expect(missing?.code == .notFound)
        #expect(missing?.message == "no such file: \(directory.file("missing.mp3").path)")
        #expect(error(decoding: directory.url)?.code == .notFound)
        let empty = error(decoding: try write([], "empty.mp3"))
        #expect(empty?.code == .empty)
        #expect(empty?.message.contains("is empty (0 bytes)") == true)
    }

    @Test("a text file renamed .mp3 is not audio, and the message says how to convert real audio")
    func textRenamed() throws {
        let url = try write(Array(String(repeating: "Meeting notes: buy milk.\n", count: 200).utf8), "notes.mp3")
        let failure = try #require(error(decoding: url))
        #expect(failure.code == .unsupportedFormat)
        #expect(failure.message.contains("is not an audio file FFmpeg recognises"))
        #expect(failure.message.contains(ConversionCommand.toCompliantWAV(input: url.path)))
        #expect(failure.message.contains("avformat_open_input failed"))
    }

    @Test("a valid WAV without samples is empty, not a crash")
    func noSamples() throws {
        let url = try write(RIFF.wave(RIFF.fmt(), RIFF.chunk("data", [])), "silent.wav")
        #expect(error(decoding: url)?.code == .empty)
    }

    @Test(
        "a file cut in half: every sample before the cut is delivered, then .truncated (or a normal end if allowed)",
        arguments: [
            ("half.wav", ["-c:a", "pcm_s16le"]), ("half.flac", ["-c:a", "flac"]),
            ("half.mp3", ["-c:a", "libmp3lame", "-b:a", "64k"]),
            ("half.m4a", ["-c:a", "aac", "-movflags", "+faststart"]),
        ])
    func truncatedHalf(name: String, options: [String]) throws {
        let bytes = try encoded(name, options)
        let url = try write(Array(bytes.prefix(bytes.count / 2)), name)

        let strict = try AudioDecoder(contentsOf: url)
        var delivered: [Float] = []
        var failure: AudioError?
        do {
            while try strict.read(into: &delivered, maxSamples: 16_000) > 0 {}
        } catch {
            failure = error
        }
        #expect(failure?.code == .truncated)
        #expect(failure?.message.contains("is truncated") == true)
        #expect(failure?.message.contains("allowTruncated") == true)
        #expect(delivered.count > 60_000 && delivered.count < 120_000, "\(delivered.count) samples before the cut")
        #expect(strict.report.isTruncated)

        let lenient = try AudioDecoder(contentsOf: url, configuration: .init(allowTruncated: true))
        let samples = try lenient.decodeAll()
        #expect(samples.count == delivered.count)
        #expect(lenient.report.isTruncated && lenient.report.isFinished)
        // The part that is there is the real audio.
        let reference = try TestAudio.jfkReference()
        #expect(Signals.snr(reference: Array(reference.prefix(samples.count - 2_000)), candidate: samples) > 15)
    }

    @Test("an M4A cut before its index (moov atom) was written is recognised and called damaged")
    func m4aWithoutIndex() throws {
        let bytes = try encoded("recording.m4a", ["-c:a", "aac"])
        let url = try write(Array(bytes.prefix(bytes.count / 2)), "recording.m4a")
        let failure = try #require(error(decoding: url))
        #expect(failure.code == .corrupted)
        #expect(failure.message.contains("looks like QuickTime / MOV but cannot be opened"))
        #expect(failure.message.contains("stopped before its index was written"))
    }

    @Test("garbage in the middle of an MP3 is skipped; the rest decodes at full length")
    func corruptedMiddle() throws {
        var bytes = try encoded("noisy.mp3", ["-c:a", "libmp3lame", "-b:a", "64k"])
        var generator = SplitMix64(seed: 7)
        for index in (bytes.count / 2)..<(bytes.count / 2 + 3_000) {
            bytes[index] = UInt8(truncatingIfNeeded: generator.next())
        }
        let decoder = try AudioDecoder(
            contentsOf: try write(bytes, "noisy.mp3"), configuration: .init(allowTruncated: true))
        let samples = try decoder.decodeAll()
        #expect(abs(samples.count - 176_000) < 16_000)
        #expect(samples.allSatisfy { $0.isFinite })
    }

    @Test(
        "every prefix of every format fails cleanly or decodes what is there — never a crash",
        arguments: [
            ("cut.wav", ["-c:a", "pcm_s16le"]), ("cut.mp3", ["-c:a", "libmp3lame"]), ("cut.flac", ["-c:a", "flac"]),
            ("cut.m4a", ["-c:a", "aac"]), ("cut.ogg", ["-c:a", "libopus"]), ("cut.webm", ["-c:a", "libopus"]),
        ])
    func prefixes(name: String, options: [String]) throws {
        let bytes = try encoded(name, options)
        let known: [AudioError.Code] = [.empty, .unsupportedFormat, .corrupted, .truncated]
        for length in [1, 3, 4, 11, 12, 40, 44, 45, 100, 500, 2_000, 8_000, bytes.count / 3, bytes.count - 1] {
            let url = try write(Array(bytes.prefix(length)), "\(length)-\(name)")
            if let failure = error(decoding: url) {
                #expect(known.contains(failure.code), "\(length) bytes of \(name): \(failure)")
                #expect(!failure.message.isEmpty)
            }
        }
    }

    @Test("random bytes with an audio extension are refused")
    func randomBytes() throws {
        var generator = SplitMix64(seed: 42)
        let bytes = (0..<50_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        for name in ["noise.wav", "noise.mp3", "noise.m4a", "noise.ogg"] {
            let failure = error(decoding: try write(bytes, name))
            #expect(failure != nil, "\(name) decoded")
            #expect(
                [.unsupportedFormat, .corrupted].contains(failure?.code), "\(name): \(String(describing: failure))")
        }
    }

    @Test("raw PCM needs valid parameters")
    func rawArguments() throws {
        let url = try TestAudio.file("goforward.raw")
        #expect { try AudioDecoder(rawPCM: url, sampleRate: 0, channels: 1, format: .s16le) } throws: {
            ($0 as? AudioError)?.code == .invalidArgument
        }
        #expect { try AudioDecoder(rawPCM: url, sampleRate: 16_000, channels: 0, format: .s16le) } throws: {
            ($0 as? AudioError)?.code == .invalidArgument
        }
    }
}
