/// The start of a whisper.cpp ggml model file: magic, hyperparameters and weight type.
///
/// Reading the header is how Earshot tells a usable model from anything else a user might point it at; the
/// errors name what the file looks like instead (a CTranslate2 `model.bin`, a GGUF file, …) and how to fix it.
public struct GGMLModelHeader: Hashable, Sendable {
    /// `"ggml"` as a little-endian u32 (the bytes `lmgg` on disk).
    public static let magic: UInt32 = 0x6767_6d6c

    /// The model's dimensions.
    public let hyperparameters: WhisperHyperparameters
    /// The weight type (f16, q8_0, …), quantization version stripped.
    public let fileType: GGMLFileType

    /// Creates a header value (see ``read(path:)`` to read one).
    public init(hyperparameters: WhisperHyperparameters, fileType: GGMLFileType) {
        self.hyperparameters = hyperparameters
        self.fileType = fileType
    }

    /// Reads and validates the header of the file at `path`.
    ///
    /// - Throws: `ModelError` `.notFound`, `.notAModel` (with a hint for CTranslate2, GGUF, zip/PyTorch files and
    ///   directories), or `.malformedModel` for implausible dimensions.
    public static func read(path: String) throws(ModelError) -> GGMLModelHeader {
        var isDirectory: Bool = false
        if fileExists(path, isDirectory: &isDirectory), isDirectory {
            if fileExists(path + "/model.bin", isDirectory: &isDirectory) {
                throw ModelError(
                    .notAModel,
                    "\(path) is a CTranslate2 model directory; convert it with "
                        + "`earshot models convert \(path) OUT.bin`")
            }
            throw ModelError(.notAModel, "\(path) is a directory, not a whisper.cpp ggml model file")
        }
        let reader = try FileReader(path: path)
        return try read(bytes: try reader.readPrefix(count: 48), source: path)
    }

    /// Parses a header from the first bytes of a file (48 are enough).
    static func read(bytes: [UInt8], source: String) throws(ModelError) -> GGMLModelHeader {
        var cursor = ByteCursor(bytes, source: source)
        guard bytes.count >= 4 else {
            throw ModelError(.notAModel, "\(source) is not a whisper.cpp ggml model (only \(bytes.count) bytes)")
        }
        let magic = try cursor.uint32()
        guard magic == Self.magic else { throw notAModel(bytes, source: source) }
        var values: [Int] = []
        for _ in 0..<10 { values.append(Int(try cursor.int32())) }
        let ftype = GGMLFileType(storedValue: try cursor.int32())
        let h = WhisperHyperparameters(
            vocabularySize: values[0], audioContext: values[1], audioState: values[2], audioHeads: values[3],
            audioLayers: values[4], textContext: values[5], textState: values[6], textHeads: values[7],
            textLayers: values[8], melCount: values[9])
        let plausible =
            values.allSatisfy { $0 > 0 && $0 < 1 << 20 } && h.audioState == h.textState
            && h.audioState % h.audioHeads == 0 && h.textState % h.textHeads == 0 && ftype.name != nil
        guard plausible else {
            throw ModelError(
                .malformedModel,
                "\(source) has a ggml magic but implausible Whisper hyperparameters \(values) ftype \(ftype.rawValue); "
                    + "it is not a whisper.cpp model (llama.cpp's old ggml files share the magic)")
        }
        return GGMLModelHeader(hyperparameters: h, fileType: ftype)
    }

    /// The error for a file without the ggml magic, saying what it looks like instead.
    private static func notAModel(_ bytes: [UInt8], source: String) -> ModelError {
        if bytes.starts(with: Array("GGUF".utf8)) {
            return ModelError(
                .notAModel,
                "\(source) is a GGUF file (llama.cpp); Earshot needs a whisper.cpp ggml model (ggml-*.bin)")
        }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            return ModelError(
                .notAModel,
                "\(source) is a zip archive (a PyTorch checkpoint or a wheel?); Earshot needs a whisper.cpp ggml "
                    + "model; convert a faster-whisper (CTranslate2) model with `earshot models convert DIR OUT.bin`")
        }
        if looksLikeCTranslate2(bytes) {
            let directory = source.contains("/") ? String(source[..<source.lastIndex(of: "/")!]) : "."
            return ModelError(
                .notAModel,
                "\(source) is a CTranslate2 model; convert it with "
                    + "`earshot models convert \(directory.isEmpty ? "/" : directory) OUT.bin`")
        }
        return ModelError(.notAModel, "\(source) is not a whisper.cpp ggml model (no 'ggml' magic)")
    }

    /// A CTranslate2 `model.bin` starts with a small binary version and a length-prefixed spec name.
    static func looksLikeCTranslate2(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 8 else { return false }
        let version = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        let length = Int(bytes[4]) | Int(bytes[5]) << 8
        guard (1...10).contains(version), length > 1, length < 64 else { return false }
        let name = bytes.dropFirst(6).prefix(min(length - 1, bytes.count - 6))
        return name.allSatisfy { (0x20..<0x7F).contains($0) }
    }
}
