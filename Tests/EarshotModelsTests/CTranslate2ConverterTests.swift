import EarshotCore
import EarshotCrypto
import Foundation
import Testing

@testable import EarshotModels

/// The converter on synthetic CTranslate2 models: exact output structure and bytes, and clear errors.
@Suite struct CTranslate2ConverterTests {
    func convert(_ model: SyntheticCTranslate2Model) throws -> (CTranslate2Converter.Result, GGMLModelFile, URL) {
        let directory = try model.write()
        let output = directory.appendingPathComponent("out.bin").path
        let result = try CTranslate2Converter().convert(directory: directory.path, to: output)
        return (result, try GGMLModelFile(path: output), directory)
    }

    func floats(_ file: GGMLModelFile, _ tensor: GGMLModelFile.Tensor) throws -> [Float] {
        let bytes = try FileReader(path: file.path).read(count: tensor.byteCount, at: tensor.offset)
        return bytes.withUnsafeBytes { raw in
            tensor.type == 0
                ? (0..<tensor.byteCount / 4).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) }
                : (0..<tensor.byteCount / 2).map {
                    Float(Float16(bitPattern: raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)))
                }
        }
    }

    @Test func headerFiltersAndVocabularyFollowWhisperCppLayout() throws {
        let (result, file, directory) = try convert(SyntheticCTranslate2Model())
        defer { try? FileManager.default.removeItem(at: directory) }
        let h = file.header.hyperparameters
        #expect(
            h
                == WhisperHyperparameters(
                    vocabularySize: 7, audioContext: 6, audioState: 4, audioHeads: 2, audioLayers: 1, textContext: 5,
                    textState: 4, textHeads: 2, textLayers: 1, melCount: 80))
        #expect(result.hyperparameters == h)
        #expect(file.header.fileType == .f16)
        #expect(file.melCount == 80 && file.binCount == 201)
        let filterBytes = try FileReader(path: file.path).read(count: 80 * 201 * 4, at: file.filtersOffset)
        #expect(filterBytes == MelFilterbank(melCount: 80).weights.withUnsafeBytes { Array($0) })
        // Only the tokens before <|endoftext|>, as raw bytes: "Ġ" is a space, "Ã©" is the UTF-8 of "é".
        #expect(file.tokens == [Array("!".utf8), Array(" a".utf8), Array(" é".utf8), [0x0A], []])
        #expect(result.byteCount == file.size)
        let onDisk = try Data(contentsOf: URL(fileURLWithPath: result.path))
        #expect(result.sha256 == DigestAlgorithm.sha256.hash(onDisk))
        // Nothing but the output is left behind (the temporary file was renamed).
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["config.json", "model.bin", "out.bin", "vocabulary.txt"])
    }

    @Test func tensorsHaveWhisperCppNamesOrderShapesAndTypes() throws {
        let (result, file, directory) = try convert(SyntheticCTranslate2Model())
        defer { try? FileManager.default.removeItem(at: directory) }
        let names = file.tensors.map(\.name)
        #expect(result.tensorCount == 50)
        try file.checkComplete()
        #expect(
            Array(names.prefix(8)) == [
                "encoder.positional_embedding", "encoder.conv1.weight", "encoder.conv1.bias", "encoder.conv2.weight",
                "encoder.conv2.bias", "encoder.blocks.0.attn.query.weight", "encoder.blocks.0.attn.query.bias",
                "encoder.blocks.0.attn.key.weight",
            ])
        #expect(!names.contains("encoder.blocks.0.attn.key.bias"))
        #expect(!names.contains("decoder.blocks.0.cross_attn.key.bias"))
        #expect(names.suffix(2) == ["decoder.ln.weight", "decoder.ln.bias"])
        let byName = Dictionary(uniqueKeysWithValues: file.tensors.map { ($0.name, $0) })
        // ggml order: innermost dimension first.
        #expect(byName["encoder.conv1.weight"]?.dimensions == [3, 80, 4])
        #expect(byName["encoder.conv1.weight"]?.type == 1)
        #expect(byName["encoder.conv1.bias"]?.dimensions == [1, 4])
        #expect(byName["encoder.conv1.bias"]?.type == 0)
        #expect(byName["encoder.positional_embedding"]?.type == 0)
        #expect(byName["decoder.positional_embedding"]?.dimensions == [4, 5])
        #expect(byName["decoder.token_embedding.weight"]?.dimensions == [4, 7])
        #expect(byName["decoder.token_embedding.weight"]?.type == 1)
        #expect(byName["decoder.blocks.0.mlp.0.weight"]?.dimensions == [4, 16])
        #expect(byName["decoder.blocks.0.mlp_ln.bias"]?.type == 0)
    }

    @Test func theFirstTensorRecordHasExactlyWhisperCppsBytes() throws {
        let (_, file, directory) = try convert(SyntheticCTranslate2Model())
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try #require(file.tensors.first)
        let name = Array("encoder.positional_embedding".utf8)
        let recordStart = first.offset - name.count - 5 * 4
        let bytes = try FileReader(path: file.path).read(count: 5 * 4 + name.count + 8, at: recordStart)
        func le(_ values: [Int32]) -> [UInt8] { values.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) } }
        // n_dims 2, name length, type 0 (f32), dims innermost first [state 4, ctx 6], name, then 0.0 and 1.0.
        let expected =
            le([2, Int32(name.count), 0, 4, 6]) + name
            + le(
                [Float(0).bitPattern, Float(1).bitPattern].map {
                    Int32(bitPattern: $0)
                })
        #expect(bytes == expected)
    }

    @Test func fusedProjectionsAreSplitRowWise() throws {
        let (_, file, directory) = try convert(SyntheticCTranslate2Model())
        defer { try? FileManager.default.removeItem(at: directory) }
        let byName = Dictionary(uniqueKeysWithValues: file.tensors.map { ($0.name, $0) })
        func values(_ name: String) throws -> [Float] { try floats(file, try #require(byName[name])) }
        let range = { (a: Int, b: Int) in (a..<b).map(Float.init) }
        // self_attention/linear_0 is [q; k; v] (12 × 4 values 0…47, bias 0…11).
        #expect(try values("encoder.blocks.0.attn.query.weight") == range(0, 16))
        #expect(try values("encoder.blocks.0.attn.key.weight") == range(16, 32))
        #expect(try values("encoder.blocks.0.attn.value.weight") == range(32, 48))
        #expect(try values("encoder.blocks.0.attn.query.bias") == range(0, 4))
        #expect(try values("encoder.blocks.0.attn.value.bias") == range(8, 12))
        // attention/linear_1 is [k; v] of the cross-attention.
        #expect(try values("decoder.blocks.0.cross_attn.key.weight") == range(0, 16))
        #expect(try values("decoder.blocks.0.cross_attn.value.weight") == range(16, 32))
        #expect(try values("decoder.blocks.0.cross_attn.value.bias") == range(4, 8))
        #expect(try values("decoder.blocks.0.cross_attn.out.weight") == range(0, 16))
        #expect(try values("encoder.conv1.bias") == range(0, 4))
        #expect(try values("encoder.positional_embedding") == range(0, 24))
    }

    @Test(arguments: [UInt8(0), 5])
    func float32AndBfloat16ModelsConvertToTheSameFileAsFloat16(dataType: UInt8) throws {
        var model = SyntheticCTranslate2Model()
        let (half, _, a) = try convert(model)
        model.dataType = dataType
        let (other, _, b) = try convert(model)
        defer {
            try? FileManager.default.removeItem(at: a)
            try? FileManager.default.removeItem(at: b)
        }
        #expect(half.sha256 == other.sha256)
    }

    @Test func int8ModelsAreRejectedWithTheReexportCommand() throws {
        var model = SyntheticCTranslate2Model()
        model.dataType = 1
        let directory = try model.write()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = #expect(throws: ModelError.self) {
            try CTranslate2Converter().convert(directory: directory.path, to: directory.path + "/out.bin")
        }
        #expect(error?.code == .unsupportedModel)
        #expect(error?.message.contains("--quantization float16") == true)
    }

    @Test func aMissingDirectoryIsNotFound() throws {
        let error = #expect(throws: ModelError.self) {
            try CTranslate2Converter().convert(directory: "/nonexistent/ct2", to: "/tmp/x.bin")
        }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("/nonexistent/ct2: no such directory") == true)
    }

    @Test func aDirectoryWithoutModelBinIsNotACTranslate2Model() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = #expect(throws: ModelError.self) {
            try CTranslate2Converter().convert(directory: directory.path, to: directory.path + "/out.bin")
        }
        #expect(error?.code == .notAModel)
        #expect(error?.message.contains("not a CTranslate2 model directory (no model.bin)") == true)
    }

    @Test(arguments: [
        (SyntheticCTranslate2Model(spec: "TransformerSpec"), "only Whisper models"),
        (SyntheticCTranslate2Model(revision: 2), "WhisperSpec revision 2 is not supported"),
        (SyntheticCTranslate2Model(binaryVersion: 9), "binary version 9 is not supported"),
    ])
    func unsupportedModelsAreRejectedByName(model: SyntheticCTranslate2Model, message: String) throws {
        let directory = try model.write()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = #expect(throws: ModelError.self) {
            try CTranslate2Converter().convert(directory: directory.path, to: directory.path + "/out.bin")
        }
        #expect(error?.code == .unsupportedModel)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/out.bin"))
    }

    @Test func aTruncatedModelIsMalformedAndWritesNothing() throws {
        let directory = try SyntheticCTranslate2Model().write()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("model.bin")
        let bytes = try Data(contentsOf: url)
        try bytes.prefix(bytes.count / 2).write(to: url)
        let error = #expect(throws: ModelError.self) {
            try CTranslate2Converter().convert(directory: directory.path, to: directory.path + "/out.bin")
        }
        #expect(error?.code == .malformedModel)
        #expect(error?.message.contains("truncated") == true)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!names.contains { $0.contains("out.bin") })
    }

    @Test func aMissingOutputDirectoryIsNamed() throws {
        let directory = try SyntheticCTranslate2Model().write()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = #expect(throws: ModelError.self) {
            try CTranslate2Converter().convert(directory: directory.path, to: "/nonexistent/dir/out.bin")
        }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("directory /nonexistent/dir does not exist") == true)
    }

    @Test func aFullDiskIsReportedAsSuch() {
        let error = AtomicFileWriter.error(
            for: SystemCallError("write", path: "/m/.x.bin.1.tmp", code: ENOSPC), destination: "/m/x.bin", written: 1024
        )
        #expect(error.code == .diskFull)
        #expect(error.message.contains("no space left on the device holding /m/x.bin"))
    }
}
