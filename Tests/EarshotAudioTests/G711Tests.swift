import EarshotAudio
import EarshotTestSupport
import Foundation
import Testing

/// G.711 against independent implementations: every byte's expansion against FFmpeg's `pcm_mulaw`/`pcm_alaw`
/// decoders, and every 16-bit value's compression against CPython's `audioop` (the reference g711.c encoder).
@Suite struct G711Tests {
    @Test(arguments: G711.allCases) func everyByteDecodesAsFFmpegDecodesIt(law: G711) throws {
        let directory = try TemporaryDirectory()
        let input = directory.file("all.g711")
        let output = directory.file("all.s16le")
        let bytes = (0...255).map(UInt8.init)
        try Data(bytes).write(to: input)
        try FFmpeg.run([
            "-f", law == .muLaw ? "mulaw" : "alaw", "-ar", "8000", "-ac", "1", "-i", input.path, "-f", "s16le",
            output.path,
        ])
        let expected = [Int16](littleEndianPCM: [UInt8](try Data(contentsOf: output)))
        #expect(law.decode(bytes) == expected)
    }

    @Test(arguments: G711.allCases) func everySampleEncodesAsTheReferenceEncoderDoes(law: G711) async throws {
        guard let python = Program.tool("python3") else {
            Issue.record("python3 is not installed")
            return
        }
        let samples = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        let script = """
            import audioop, sys
            data = sys.stdin.buffer.read()
            sys.stdout.buffer.write(audioop.\(law == .muLaw ? "lin2ulaw" : "lin2alaw")(data, 2).hex().encode())
            """
        let result = try await python.run(
            ["-W", "ignore", "-c", script], input: Data(samples.littleEndianBytes), timeout: .seconds(60))
        try #require(result.status == 0, "\(result)")
        let expected = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let encoded = law.encode(samples)
        #expect(encoded.count == samples.count)
        let hex = encoded.map { String(format: "%02x", $0) }.joined()
        if hex != expected {
            let first = zip(hex, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? 0
            Issue.record("first difference at sample \(samples[first / 2])")
        }
    }

    @Test(arguments: G711.allCases) func decodingWhatWasEncodedGivesEveryLevelBack(law: G711) {
        let levels = law.decode((0...255).map(UInt8.init))
        #expect(law.decode(law.encode(levels)) == levels)
    }
}
