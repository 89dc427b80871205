import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotModels

/// `earshot models …` as a user runs it: the built binary in a child process with its own EARSHOT_HOME.
@Suite struct ModelsCommandTests {
    /// Runs `earshot ARGS` with `EARSHOT_HOME=home`; returns exit status, stdout and stderr.
    func earshot(_ arguments: [String], home: String) throws -> ProcessResult {
        try Program.earshot.runBlocking(arguments, environment: ["EARSHOT_HOME": home], timeout: .seconds(120))
    }

    @Test func listShowsEveryCatalogModelAsMissingInAnEmptyHome() throws {
        let home = try TestEnvironment.makeTemporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try earshot(["models", "list"], home: home.path)
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("NAME") == true)
        for name in ["ggml-base.bin", "ggml-base-q8_0.bin", "ggml-tiny.en.bin", "ggml-tiny.en-q8_0.bin"] {
            #expect(lines.contains { $0.contains(name) && $0.contains("missing") }, "\(name)")
        }
        #expect(result.stdout.contains("tier asr-fast → base-q8_0 (greedy)"))
        #expect(result.stdout.contains("tier asr-pro → base-q8_0 (beam 5)"))
        #expect(result.stdout.contains("alias whisper-1 → tier asr-fast"))
        #expect(result.stdout.contains("alias ikho-asr-fast → tier asr-fast"))
        #expect(result.stdout.contains("alias ikho-asr-pro → tier asr-pro"))
        #expect(result.stdout.contains("models directory: \(home.path)/models"))
    }

    @Test(arguments: ["asr-pro", "ikho-asr-pro", "whisper-1"])
    func pathOfAMissingModelFailsWithTheInstallCommand(name: String) throws {
        let home = try TestEnvironment.makeTemporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try earshot(["models", "path", name], home: home.path)
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("model 'base-q8_0' is not installed"))
        #expect(result.stderr.contains("earshot models install base-q8_0"))
    }

    @Test func convertThenPathOfTheConvertedFile() throws {
        let directory = try SyntheticCTranslate2Model().write()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.path + "/converted.bin"
        let converted = try earshot(["models", "convert", directory.path, output], home: directory.path)
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stdout.hasPrefix(output))
        #expect(converted.stdout.contains("sha256 "))
        let path = try earshot(["models", "path", output], home: directory.path)
        #expect(path.status == 0, "\(path)")
        #expect(path.stdout == output + "\n")
        let ct2 = try earshot(["models", "path", directory.path + "/model.bin"], home: directory.path)
        #expect(ct2.status == 1, "\(ct2)")
        #expect(
            ct2.stderr.contains(
                "is a CTranslate2 model; convert it with `earshot models convert \(directory.path) OUT.bin`"))
    }

    @Test func convertErrorsAreClear() throws {
        let home = try TestEnvironment.makeTemporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let missing = try earshot(["models", "convert", "/nonexistent/ct2", home.path + "/x.bin"], home: home.path)
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.stderr.contains("/nonexistent/ct2: no such directory"))
        let notCT2 = try earshot(["models", "convert", home.path, home.path + "/x.bin"], home: home.path)
        #expect(notCT2.status == 1, "\(notCT2)")
        #expect(notCT2.stderr.contains("is not a CTranslate2 model directory (no model.bin)"))
        let badType = try earshot(
            ["models", "convert", home.path, home.path + "/x.bin", "--quantize", "q9"], home: home.path)
        #expect(badType.status == 64, "\(badType)")
        #expect(badType.stderr.contains("unknown quantization 'q9'"))
        let usage = try earshot(["models", "convert", home.path], home: home.path)
        #expect(usage.status == 64, "\(usage)")
        #expect(usage.stderr.contains("needs a CTranslate2 model directory and an output file"))
        let unknown = try earshot(["models", "lsit"], home: home.path)
        #expect(unknown.status == 64, "\(unknown)")
        #expect(unknown.stderr.contains("did you mean 'list'?"))
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: RealHome.store.quantizeTool),
            "whisper-quantize is not built"))
    func convertWithQuantizeWritesAQ8File() throws {
        var model = SyntheticCTranslate2Model()
        model.state = 32  // q8_0 blocks are 32 wide
        let directory = try model.write()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.path + "/q8.bin"
        let result = try earshot(
            ["models", "convert", directory.path, output, "--quantize", "q8_0"], home: RealHome.store.home)
        #expect(result.status == 0, "\(result.stderr)")
        let header = try GGMLModelHeader.read(path: output)
        #expect(header.fileType == .q8_0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.contains("tmp") || $0.contains("quantizing")
        }
        #expect(leftovers.isEmpty)
    }

    @Test(.enabled(if: RealHome.modelsInstalled, RealHome.skipReason))
    func pathOfTheRealTiersAndVerify() throws {
        let home = RealHome.store.home
        let fast = try earshot(["models", "path", "asr-fast"], home: home)
        #expect(fast.stdout == RealHome.store.modelsDirectory + "/ggml-base-q8_0.bin\n")
        let list = try earshot(["models", "list"], home: home)
        #expect(list.stdout.split(separator: "\n").filter { $0.contains(" installed ") }.count == 4)
        let verify = try earshot(["models", "verify", "tiny.en-q8_0"], home: home)
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.stdout.hasPrefix("ok"))
    }
}
