import EarshotTestSupport
import Foundation

/// Paths to the machine's test audio and models (installed by `make setup` under ``TestEnvironment/home``).
enum Fixtures {
    /// The model home the tests use (``TestEnvironment/home``).
    static var home: String { TestEnvironment.home.path }
    static func model(_ name: String) -> String { TestEnvironment.model(name).path }
    static func testdata(_ path: String) -> String { TestEnvironment.testdata(path).path }
    static var vocabularyOnlyModel: String { model("for-tests-ggml-tiny.bin") }
    static var silero: String { model("silero-v6.2.0-ggml.bin") }
    /// The model the transcription tests use: base q8_0 (the `asr-fast` file).
    static var baseQ8: String { model("ggml-base-q8_0.bin") }
    static var hasBase: Bool { FileManager.default.fileExists(atPath: baseQ8) }

    /// Committed golden files.
    static func golden(_ name: String) -> URL { TestEnvironment.fixture("speech/\(name)") }

    /// 16-bit PCM WAV or headerless s16le (`.raw`) at 16 kHz mono, as Float in −1…1 (tests only; production
    /// decoding is EarshotAudio's).
    static func samples(_ path: String) throws -> [Float] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let bytes = [UInt8](data)
        var pcm = bytes[...]
        if bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) {
            var offset = 12
            var found = false
            while offset + 8 <= bytes.count {
                let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
                let size =
                    Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                    | Int(bytes[offset + 7]) << 24
                if id == "fmt " {
                    let format = Int(bytes[offset + 8]) | Int(bytes[offset + 9]) << 8
                    let channels = Int(bytes[offset + 10]) | Int(bytes[offset + 11]) << 8
                    let rate = Int(bytes[offset + 12]) | Int(bytes[offset + 13]) << 8 | Int(bytes[offset + 14]) << 16
                    let bits = Int(bytes[offset + 22]) | Int(bytes[offset + 23]) << 8
                    guard format == 1, channels == 1, rate == 16_000, bits == 16 else {
                        throw CocoaError(.fileReadCorruptFile)
                    }
                } else if id == "data" {
                    pcm = bytes[(offset + 8)..<min(bytes.count, offset + 8 + size)]
                    found = true
                    break
                }
                offset += 8 + size + (size & 1)
            }
            guard found else { throw CocoaError(.fileReadCorruptFile) }
        }
        var samples = [Float](repeating: 0, count: pcm.count / 2)
        var index = pcm.startIndex
        for i in samples.indices {
            samples[i] = Float(Int16(bitPattern: UInt16(pcm[index]) | UInt16(pcm[index + 1]) << 8)) / 32768
            index += 2
        }
        return samples
    }

    /// The pocketsphinx transcription file's lines as (file id, text).
    static func sphinxReferences(_ path: String) throws -> [(id: String, text: String)] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard let open = line.lastIndex(of: "("), let close = line.lastIndex(of: ")") else { return nil }
            let id = String(line[line.index(after: open)..<close])
            let text = line[..<open].replacingOccurrences(of: "<s>", with: "").replacingOccurrences(
                of: "</s>", with: ""
            )
            .trimmingCharacters(in: .whitespaces)
            return (id, text)
        }
    }
}
