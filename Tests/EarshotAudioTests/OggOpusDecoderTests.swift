import EarshotAudio
import EarshotTestSupport
import Foundation
import Testing

/// Live Opus input: an Ogg Opus stream fed in arbitrary pieces decodes to the samples that were encoded, from our
/// own writer and from FFmpeg's libopus encoder alike; anything else is refused with a reason.
@Suite struct OggOpusDecoderTests {
    /// Decodes `bytes` fed in pieces of the given sizes, cycling.
    func decode(_ bytes: [UInt8], pieces sizes: [Int], rate: Int = 16_000) throws -> (samples: [Float], ended: Bool) {
        let decoder = try OggOpusDecoder(sampleRate: rate)
        var samples: [Int16] = []
        var offset = 0
        var index = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + sizes[index % sizes.count])
            samples += try decoder.decode(Array(bytes[offset..<end]))
            offset = end
            index += 1
        }
        return (samples.map { Float($0) / 32_768 }, decoder.ended)
    }

    func encoded(_ samples: [Float]) throws -> [UInt8] {
        let stream = try OggOpusStream()
        var bytes = stream.start()
        bytes += try stream.append(samples)
        return bytes + (try stream.finish())
    }

    @Test func ourStreamComesBackExactInLengthWhateverThePieces() throws {
        let reference = try TestAudio.jfkReference()
        let bytes = try encoded(reference)
        for sizes in [[bytes.count], [1], [7, 300, 4_096], [27, 28]] {
            let (decoded, ended) = try decode(bytes, pieces: sizes)
            #expect(ended)
            #expect(decoded.count == reference.count, "pieces \(sizes.prefix(3))")
            let aligned = Signals.alignment(reference: reference, candidate: decoded, maxLag: 160)
            #expect(abs(aligned.lag) <= 16, "pre-skip honoured: lag \(aligned.lag)")
            #expect(Signals.snr(reference: reference, candidate: decoded, lag: aligned.lag) >= 12)
        }
    }

    @Test func ffmpegsLibopusStreamDecodesAtAnyOpusRate() throws {
        let directory = try TemporaryDirectory()
        let opus = directory.file("jfk.opus")
        // 48 kHz stereo from FFmpeg's libopus encoder, pages of up to a second (its default).
        try FFmpeg.convert(try TestAudio.jfk(), to: opus, ["-ac", "2", "-c:a", "libopus", "-b:a", "32k", "-f", "ogg"])
        let bytes = [UInt8](try Data(contentsOf: opus))
        let reference = try TestAudio.jfkReference()
        let (at16k, _) = try decode(bytes, pieces: [1_000])
        #expect(abs(at16k.count - reference.count) <= 16, "\(at16k.count) vs \(reference.count)")
        let aligned = Signals.alignment(reference: reference, candidate: at16k, maxLag: 320)
        #expect(Signals.snr(reference: reference, candidate: at16k, lag: aligned.lag) >= 10)
        let (at48k, _) = try decode(bytes, pieces: [333], rate: 48_000)
        #expect(abs(at48k.count - reference.count * 3) <= 48, "\(at48k.count)")
    }

    @Test func aStreamCutMidPageWaitsForTheRest() throws {
        let bytes = try encoded(try TestAudio.jfkReference())
        let decoder = try OggOpusDecoder()
        let first = try decoder.decode(Array(bytes.prefix(bytes.count / 2)))
        #expect(!first.isEmpty)
        #expect(!decoder.ended)
        let rest = try decoder.decode(Array(bytes.dropFirst(bytes.count / 2)))
        #expect(!rest.isEmpty)
        #expect(decoder.ended)
    }

    @Test func whatIsNotAnOggOpusStreamIsRefusedWithAReason() throws {
        func refusal(_ bytes: [UInt8]) -> AudioError? {
            do {
                _ = try OggOpusDecoder().decode(bytes)
                return nil
            } catch {
                return error
            }
        }
        let wav = [UInt8](try Data(contentsOf: try TestAudio.jfk()).prefix(4_000))
        #expect(refusal(wav)?.code == .unsupportedFormat)
        #expect(refusal(wav)?.message.contains("a WAV file") == true)
        let pcm = [UInt8](repeating: 0x11, count: 3_200)
        #expect(refusal(pcm)?.code == .unsupportedFormat)

        // Ogg, but Vorbis.
        let directory = try TemporaryDirectory()
        let vorbis = directory.file("jfk.ogg")
        try FFmpeg.convert(try TestAudio.jfk(), to: vorbis, ["-c:a", "libvorbis", "-f", "ogg"])
        let vorbisBytes = [UInt8](try Data(contentsOf: vorbis))
        #expect(refusal(vorbisBytes)?.code == .unsupportedFormat)
        #expect(refusal(vorbisBytes)?.message.contains("not Opus") == true)

        let good = try encoded(try TestAudio.jfkReference())
        // A flipped byte inside the third page: its checksum fails.
        var damaged = good
        damaged[damaged.count / 2] ^= 0x40
        let decoder = try OggOpusDecoder()
        #expect(throws: AudioError.self) { _ = try decoder.decode(damaged) }
        #expect(throws: AudioError.self, "a decoder that failed stays failed") { _ = try decoder.decode([]) }

        // Bytes after the last page.
        let finished = try OggOpusDecoder()
        _ = try finished.decode(good)
        #expect(throws: AudioError.self) { _ = try finished.decode(Array(good.prefix(100))) }

        // A page left out: the next page's sequence number gives it away.
        let pages = splitPages(good)
        #expect(pages.count > 4)
        let skipping = try OggOpusDecoder()
        _ = try skipping.decode(pages[0] + pages[1] + pages[2])
        do {
            _ = try skipping.decode(pages[4])
            Issue.record("a missing page was not noticed")
        } catch {
            #expect(error.code == .corrupted)
            #expect(error.message.contains("expected"), "\(error)")
        }
    }

    /// The pages of a stream, by their header lengths.
    func splitPages(_ bytes: [UInt8]) -> [[UInt8]] {
        var pages: [[UInt8]] = []
        var offset = 0
        while offset + 27 <= bytes.count {
            let segments = Int(bytes[offset + 26])
            let length = 27 + segments + bytes[offset + 27..<offset + 27 + segments].reduce(0) { $0 + Int($1) }
            pages.append(Array(bytes[offset..<offset + length]))
            offset += length
        }
        return pages
    }
}
