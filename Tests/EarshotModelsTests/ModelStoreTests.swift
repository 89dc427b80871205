import EarshotCore
import EarshotCrypto
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotModels

/// Catalog, tiers, verification and turning a user's model argument into a file.
@Suite struct ModelStoreTests {
    /// A store whose catalog has one model, `name` (default `synthetic`), installed from a converted synthetic CT2
    /// model.
    func storeWithSyntheticModel(named name: String = "synthetic") throws -> (ModelStore, URL) {
        let home = try TestEnvironment.makeTemporaryDirectory("home")
        let ct2 = try SyntheticCTranslate2Model().write()
        defer { try? FileManager.default.removeItem(at: ct2) }
        try FileManager.default.createDirectory(
            at: home.appendingPathComponent("models"), withIntermediateDirectories: true)
        let result = try CTranslate2Converter().convert(
            directory: ct2.path, to: home.appendingPathComponent("models/ggml-synthetic.bin").path)
        var configuration = ModelStore.Configuration()
        configuration.catalog = ModelCatalog(entries: [
            .init(
                name: name, fileName: "ggml-synthetic.bin", language: .multilingual, fileType: .f16,
                source: .quantized(from: "none"), sha256: result.sha256.hex, byteCount: result.byteCount,
                summary: "test model")
        ])
        return (ModelStore(home: home.path, configuration: configuration), home)
    }

    @Test func scriptsModelsSHA256ListsExactlyTheCatalog() throws {
        let text = try String(
            contentsOf: TestEnvironment.repository.appendingPathComponent("scripts/models.sha256"), encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        let listed = Dictionary(uniqueKeysWithValues: lines.map { (String($0[1]), String($0[0])) })
        let catalog = Dictionary(uniqueKeysWithValues: ModelCatalog.standard.entries.map { ($0.fileName, $0.sha256) })
        #expect(listed == catalog)
    }

    @Test func catalogUsesTheFileNamesTheSpeechEngineExpects() {
        #expect(
            ModelCatalog.standard.entries.map(\.fileName) == [
                "ggml-base.bin", "ggml-base-q8_0.bin", "ggml-tiny.en.bin", "ggml-tiny.en-q8_0.bin",
            ])
        for entry in ModelCatalog.standard.entries {
            if case .quantized(let source) = entry.source {
                #expect(ModelCatalog.standard.entry(named: source) != nil)
            }
        }
    }

    @Test func theConvertedBaseModelHasTheOfficialSize() {
        // whisper.cpp's published ggml-base.bin is 147,951,465 bytes; the conversion reproduces its layout.
        #expect(ModelCatalog.standard.entry(named: "base")?.byteCount == 147_951_465)
    }

    @Test func tiersMapToCatalogModels() {
        #expect(ModelTier.named("asr-fast")?.modelName == "base-q8_0")
        #expect(ModelTier.named("asr-fast")?.beamSize == 1)
        #expect(ModelTier.named("asr-pro")?.modelName == "base-q8_0")
        #expect(ModelTier.named("asr-pro")?.beamSize == 5)
        #expect(ModelTier.named("asr-pro")?.beamSize == 5)
        #expect(ModelTier.named("asr-turbo") == nil)
        for tier in ModelTier.all { #expect(ModelCatalog.standard.entry(named: tier.modelName) != nil) }
    }

    @Test func aliasesSelectTheirTiers() {
        #expect(ModelTier.named("whisper-1") == .fast)
        #expect(ModelTier.named("ikho-asr-fast") == .fast)
        #expect(ModelTier.named("ikho-asr-pro") == .pro)
        #expect(ModelTier.named("ikho-asr-pro")?.name == "asr-pro")  // the canonical tier, not the alias
        for name in ["whisper-2", "ikho-asr", "Whisper-1", "base-q8_0", ""] { #expect(ModelTier.named(name) == nil) }
        #expect(
            ModelTier.acceptedNames == ["asr-fast", "asr-pro", "whisper-1", "ikho-asr-fast", "ikho-asr-pro"])
        let message = ModelTier.notOfferedMessage("gpt-9")
        #expect(message.hasPrefix("model \"gpt-9\" is not offered; use asr-fast (low latency) or asr-pro"))
        #expect(message.contains("whisper-1 (= asr-fast), ikho-asr-fast (= asr-fast), ikho-asr-pro (= asr-pro)"))
    }

    @Test(arguments: [("ikho-asr-pro", ModelTier.pro), ("ikho-asr-fast", .fast), ("whisper-1", .fast)])
    func anAliasResolvesToItsTiersModelAndDecoding(alias: String, tier: ModelTier) throws {
        let (store, home) = try storeWithSyntheticModel(named: "base-q8_0")
        defer { try? FileManager.default.removeItem(at: home) }
        let resolved = try store.resolve(alias)
        #expect(resolved.tier == tier)
        #expect(resolved.entry?.name == "base-q8_0")
        #expect(resolved.path == home.path + "/models/ggml-synthetic.bin")
    }

    @Test func verifyAcceptsTheInstalledFileAndCatchesACorruptedOne() throws {
        let (store, home) = try storeWithSyntheticModel()
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(try store.verify("synthetic").hex == store.configuration.catalog.entries[0].sha256)
        #expect(store.list().map(\.isInstalled) == [true])

        let path = try store.path(for: "synthetic")
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: 70_000)
        try handle.write(contentsOf: Data([0xFF]))
        try handle.close()
        let error = #expect(throws: ModelError.self) { try store.verify("synthetic") }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.message.contains("is corrupt or a different file") == true)
        #expect(error?.message.contains("delete it and install again") == true)
    }

    @Test func aMissingModelNamesTheInstallCommand() throws {
        let home = try TestEnvironment.makeTemporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let store = ModelStore(home: home.path)
        #expect(store.list().allSatisfy { !$0.isInstalled && $0.byteCount == nil })
        for argument in ["base-q8_0", "asr-fast", "whisper-1", "ikho-asr-fast", "ikho-asr-pro"] {
            let error = #expect(throws: ModelError.self) { try store.resolve(argument) }
            #expect(error?.code == .notFound)
            #expect(error?.message.contains("run `earshot models install base-q8_0`") == true)
        }
    }

    @Test func namesTiersAndPathsResolve() throws {
        let (store, home) = try storeWithSyntheticModel()
        defer { try? FileManager.default.removeItem(at: home) }
        let byName = try store.resolve("synthetic")
        #expect(byName.entry?.name == "synthetic")
        #expect(byName.header.hyperparameters.audioState == 4)
        let byPath = try store.resolve(byName.path)
        #expect(byPath.path == byName.path)
        #expect(byPath.entry == nil)
        #expect(byPath.header == byName.header)
    }

    @Test func anUnknownNameSuggestsTheClosestOne() throws {
        let store = ModelStore(home: "/nonexistent")
        let error = #expect(throws: ModelError.self) { try store.resolve("bsae") }
        #expect(error?.code == .unknownModel)
        #expect(error?.message.contains("did you mean 'base'?") == true)
        #expect(error?.message.contains("asr-fast, asr-pro, whisper-1, ikho-asr-fast, ikho-asr-pro") == true)
    }

    @Test func aMissingFileIsNotFound() {
        let error = #expect(throws: ModelError.self) { try ModelStore(home: "/x").resolve("/nonexistent/model.bin") }
        #expect(error?.code == .notFound)
    }

    @Test func aCTranslate2ModelIsRecognisedWithTheConvertCommand() throws {
        let directory = try SyntheticCTranslate2Model().write()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = ModelStore(home: "/nonexistent")
        for argument in [directory.path + "/model.bin", directory.path] {
            let error = #expect(throws: ModelError.self) { try store.resolve(argument) }
            #expect(error?.code == .notAModel)
            #expect(error?.message.contains("CTranslate2 model") == true)
            #expect(error?.message.contains("earshot models convert \(directory.path) OUT.bin") == true)
        }
    }

    @Test(arguments: [
        (Array("GGUF".utf8) + [3, 0, 0, 0, 0, 0, 0, 0], "is a GGUF file (llama.cpp)"),
        ([0x50, 0x4B, 0x03, 0x04, 0, 0, 0, 0], "is a zip archive"),
        (Array("hello, world\n".utf8), "is not a whisper.cpp ggml model (no 'ggml' magic)"),
        ([0x6C, 0x6D, 0x67, 0x67] + [UInt8](repeating: 0, count: 44), "implausible Whisper hyperparameters"),
        ([0x6C, 0x6D], "only 2 bytes"),
    ])
    func otherFilesAreRejectedSayingWhatTheyAre(bytes: [UInt8], message: String) throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("models")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("model.bin")
        try Data(bytes).write(to: path)
        let error = #expect(throws: ModelError.self) { try ModelStore(home: "/x").resolve(path.path) }
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test func theStoreFollowsTheModelHomeRule() throws {
        let home = ModelHome.resolve(environment: ["EARSHOT_HOME": "/srv/earshot"])
        #expect(ModelStore(home: home).modelsDirectory == "/srv/earshot/models")
        #expect(try ModelStore(home: home).installPath(for: "base-q8_0") == "/srv/earshot/models/ggml-base-q8_0.bin")
        #expect(ModelStore(home: "/srv/earshot/").modelsDirectory == "/srv/earshot/models")
        #expect(ModelStore(home: "/srv/earshot/").quantizeTool == "whisper-quantize")  // none installed there
    }
}
