import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotModels

/// The files `scripts/setup-models` installs: dimensions, completeness, vocabulary and digests.
@Suite(.enabled(if: RealHome.modelsInstalled, RealHome.skipReason))
struct RealModelFilesTests {
    static let base = WhisperHyperparameters(
        vocabularySize: 51865, audioContext: 1500, audioState: 512, audioHeads: 8, audioLayers: 6,
        textContext: 448, textState: 512, textHeads: 8, textLayers: 6, melCount: 80)
    static let tinyEnglish = WhisperHyperparameters(
        vocabularySize: 51864, audioContext: 1500, audioState: 384, audioHeads: 6, audioLayers: 4,
        textContext: 448, textState: 384, textHeads: 6, textLayers: 4, melCount: 80)

    @Test(arguments: [
        ("base", base, GGMLFileType.f16), ("base-q8_0", base, .q8_0), ("tiny.en", tinyEnglish, .f16),
        ("tiny.en-q8_0", tinyEnglish, .q8_0),
    ])
    func headersHaveTheModelsDimensions(name: String, expected: WhisperHyperparameters, type: GGMLFileType) throws {
        let model = try RealHome.store.resolve(name)
        #expect(model.header.hyperparameters == expected)
        #expect(model.header.fileType == type)
        #expect(model.entry?.fileType == type)
        #expect(model.header.hyperparameters.isMultilingual == (model.entry?.language == .multilingual))
    }

    @Test(arguments: ["base", "base-q8_0", "tiny.en", "tiny.en-q8_0"])
    func everyTensorWhisperCppLoadsIsPresent(name: String) throws {
        let file = try GGMLModelFile(path: try RealHome.store.path(for: name))
        try file.checkComplete()
        #expect(file.tensors.last.map { $0.offset + $0.byteCount } == file.size)
        #expect(file.tensors.first?.name == "encoder.positional_embedding")
    }

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: RealHome.whisperCLI), "whisper-cli is not built"),
        .enabled(if: FileManager.default.fileExists(atPath: RealHome.jfk), "testdata/jfk.wav is missing"))
    func whisperCppTranscribesJFKWithTheConvertedModel() throws {
        let whisper = Program(URL(fileURLWithPath: RealHome.whisperCLI))
        let result = try whisper.runBlocking(
            ["-m", try RealHome.store.path(for: "base"), "-f", RealHome.jfk, "-nt", "-t", "2"], timeout: .seconds(300))
        try #require(result.status == 0, "\(result)")
        // Compare words only: punctuation varies with the decoding mode.
        func words(_ text: String) -> String {
            text.lowercased().unicodeScalars.filter { CharacterSet.letters.contains($0) || $0 == " " || $0 == "\n" }
                .map(String.init).joined().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let transcript = words(result.stdout)
        #expect(
            transcript
                == words(
                    "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."
                ),
            "\(transcript)")
    }

    @Test(
        .enabled(if: RealHome.assetsPresent, RealHome.assetsSkipReason),
        arguments: [("base", "multilingual.tiktoken"), ("tiny.en", "gpt2.tiktoken")])
    func vocabularyEqualsOpenAIsTiktokenFile(name: String, tiktoken: String) throws {
        let file = try GGMLModelFile(path: try RealHome.store.path(for: name))
        let reference = try tiktokenTokens(RealHome.assets + "/" + tiktoken)
        #expect(file.tokens.count == reference.count)
        #expect(file.tokens == reference)
    }

    @Test(arguments: ["base", "base-q8_0", "tiny.en", "tiny.en-q8_0"])
    func installedFilesMatchTheirSHA256(name: String) throws {
        let digest = try RealHome.store.verify(name)
        #expect(digest.hex == ModelCatalog.standard.entry(named: name)?.sha256)
    }
}
