import EarshotAudio
import Foundation
import Testing

@testable import EarshotLive

/// The wire formats of a live session: the names clients use (GA and beta), their rates, and what goes in and out.
@Suite struct LiveAudioFormatTests {
    let pcm = LiveAudioFormat.pcm16(rate: 24_000)

    @Test func namesAndRatesAreTheOnesClientsUse() throws {
        func named(_ name: String, rate: Int? = nil, output: Bool = false) throws -> LiveAudioFormat {
            try LiveAudioFormat.named(name, rate: rate, current: pcm, output: output, param: "format")
        }
        #expect(try named("audio/pcm") == .pcm16(rate: 24_000))
        #expect(try named("pcm16", rate: 16_000) == .pcm16(rate: 16_000))
        #expect(try named("audio/pcmu") == .g711(.muLaw))
        #expect(try named("g711_alaw") == .g711(.aLaw))
        #expect(try named("audio/opus") == .opus(rate: 16_000))
        #expect(try named("opus", output: true) == .opus(rate: 24_000))
        #expect(try named("audio/opus", rate: 48_000) == .opus(rate: 48_000))
        #expect(LiveAudioFormat.g711(.muLaw).json == ["type": "audio/pcmu"])
        #expect(LiveAudioFormat.opus(rate: 16_000).betaName == "opus")
        #expect(try LiveAudioFormat.pcm16(rate: 24_000).at(rate: 16_000, param: "r") == .pcm16(rate: 16_000))

        for (name, rate) in [
            ("audio/flac", nil), ("mp3", nil), ("audio/pcm", 44_100), ("audio/pcmu", 16_000),
            ("audio/opus", 44_100),
        ] as [(String, Int?)] {
            do {
                _ = try named(name, rate: rate)
                Issue.record("\(name) at \(String(describing: rate)) was taken")
            } catch let error as RealtimeError {
                #expect(error.code == "unsupported_audio_format")
                #expect(error.param == "format")
            }
        }
        #expect(throws: RealtimeError.self) { try LiveAudioFormat.g711(.aLaw).at(rate: 16_000, param: "r") }
    }

    @Test func g711AndOpusInputDecodeToPCM16AtTheirRates() throws {
        let tone = (0..<8_000).map { Int16(8_000 * sin(Double($0) * 2 * .pi * 440 / 8_000)) }
        let g711 = try LiveInputDecoder(format: .g711(.muLaw))
        let decoded = [Int16](littleEndianPCM: try g711.decode(G711.muLaw.encode(tone)))
        #expect(decoded.count == tone.count)
        #expect(zip(decoded, tone).allSatisfy { abs(Int($0) - Int($1)) <= 256 })

        let stream = try OggOpusStream()
        let samples = (0..<16_000).map { Float(sin(Double($0) * 2 * .pi * 440 / 16_000)) * 0.25 }
        let file = stream.start() + (try stream.append(samples)) + (try stream.finish())
        let opus = try LiveInputDecoder(format: .opus(rate: 16_000))
        var bytes: [UInt8] = []
        for start in stride(from: 0, to: file.count, by: 500) {
            bytes += try opus.decode(Array(file[start..<min(file.count, start + 500)]))
        }
        #expect(bytes.count == samples.count * 2)

        // PCM16 sent as a file, raw PCM sent where Opus was promised: an error naming what came.
        do {
            _ = try LiveInputDecoder(format: pcm).decode(Array("RIFF....WAVEfmt ".utf8))
            Issue.record("a WAV file was taken as PCM16")
        } catch let error as RealtimeError {
            #expect(error.code == "invalid_audio_format")
        }
        let restarted = try LiveInputDecoder(format: .opus(rate: 16_000))
        do {
            _ = try restarted.decode([UInt8](repeating: 1, count: 960))
            Issue.record("raw bytes were taken as Ogg Opus")
        } catch let error as RealtimeError {
            #expect(error.code == "invalid_audio_format")
            #expect(error.message.contains("Ogg Opus"), "\(error.message)")
        }
        // The session goes on: a stream that starts afresh decodes.
        #expect(try restarted.decode(file).count == samples.count * 2)
    }

    @Test func spokenAudioGoesOutInHalfSecondChunksAndOpusDeltasJoinIntoOneStream() throws {
        let rate = 24_000
        let speech = (0..<(rate * 2 + 123)).map { Int16(6_000 * sin(Double($0) * 2 * .pi * 300 / Double(rate))) }
        let pcm16 = speech.littleEndianBytes
        let plain = try LiveOutputEncoder.chunks(pcm16, format: .pcm16(rate: rate))
        #expect(plain.count == 5)
        #expect(plain.joined().elementsEqual(pcm16))

        let telephone = [Int16](repeating: 1_000, count: 8_000 * 2 + 5).littleEndianBytes
        let g711 = try LiveOutputEncoder.chunks(telephone, format: .g711(.aLaw))
        #expect(g711.map(\.count) == [4_000, 4_000, 4_000, 4_000, 5])

        let opus = try LiveOutputEncoder.chunks(pcm16, format: .opus(rate: rate))
        #expect(opus.count >= 4, "about one delta per half second: \(opus.count)")
        #expect(opus.allSatisfy { $0.starts(with: Array("OggS".utf8)) }, "every delta is whole pages")
        let decoder = try OggOpusDecoder(sampleRate: rate)
        var decoded: [Int16] = []
        for chunk in opus { decoded += try decoder.decode(chunk) }
        #expect(decoder.ended)
        #expect(decoded.count == speech.count)
    }
}
