public import EarshotCrypto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Converts a CTranslate2 Whisper model (a faster-whisper model directory) into whisper.cpp's ggml model file.
///
/// Input: a directory with `model.bin` (binary version 4–6, spec `WhisperSpec` revision 3, float16, float32 or
/// bfloat16 variables) and the vocabulary (`vocabulary.txt`, `vocabulary.json` or `tokenizer.json`).
///
/// Output: the layout of whisper.cpp's `convert-pt-to-ggml.py` — magic, eleven hyperparameters, the mel
/// filterbank (computed, see ``MelFilterbank``), the ordinary tokens as raw bytes, then every tensor under its
/// OpenAI name in the OpenAI checkpoint's order. Matrices and convolution kernels are float16; vectors, the
/// convolution biases (as `[n, 1]`) and both positional embeddings are float32. CTranslate2's fused projections
/// are split: self-attention `linear_0` into query/key/value (the key has no bias: CTranslate2's zero key bias
/// is dropped, which is exact because a per-query constant does not change a softmax), cross-attention
/// `linear_1` into key/value.
///
/// Tensors are streamed one at a time in chunks (memory stays at a few MB), the output is written to a
/// temporary file and renamed into place, and its SHA-256 is computed on the way.
public struct CTranslate2Converter: Sendable {
    /// What a conversion produced.
    public struct Result: Sendable {
        /// The written model file.
        public let path: String
        /// SHA-256 of the file's bytes.
        public let sha256: Digest
        /// File size in bytes.
        public let byteCount: Int
        /// The model's dimensions (as written in the header).
        public let hyperparameters: WhisperHyperparameters
        /// Number of tensors written.
        public let tensorCount: Int
    }

    public init() {}

    /// Converts the CTranslate2 model in `directory` to a ggml file at `output` (replaced atomically).
    ///
    /// - Throws: `ModelError` — `.notFound` (no such directory), `.notAModel` (no `model.bin`),
    ///   `.unsupportedModel` (not Whisper, another spec revision, int8 weights), `.malformedModel`,
    ///   `.diskFull` (checked before writing and on every write), `.ioFailure`.
    public func convert(directory: String, to output: String) throws(ModelError) -> Result {
        var isDirectory = false
        guard fileExists(directory, isDirectory: &isDirectory) else {
            throw ModelError(.notFound, "\(directory): no such directory")
        }
        guard isDirectory else {
            throw ModelError(
                .notAModel, "\(directory) is a file; pass the CTranslate2 model directory (the one holding model.bin)")
        }
        guard fileExists(directory + "/model.bin", isDirectory: &isDirectory) else {
            throw ModelError(
                .notAModel,
                "\(directory) is not a CTranslate2 model directory (no model.bin); a faster-whisper model directory "
                    + "holds model.bin, config.json and vocabulary.txt")
        }
        let model = try CTranslate2Model(path: directory + "/model.bin")
        let layout = try WhisperLayout(model: model)
        try layout.validate()
        let vocabulary = try CTranslate2Vocabulary(directory: directory)
        let filters = MelFilterbank(melCount: layout.hyperparameters.melCount)

        let plan = layout.tensors()
        let estimate =
            48 + filters.weights.count * 4 + vocabulary.tokens.reduce(0) { $0 + 4 + $1.count }
            + plan.reduce(0) { $0 + $1.outputByteCount + 12 + 4 * $1.shape.count + $1.name.utf8.count }
        try ensureSpace(estimate, for: output)

        let writer = try AtomicFileWriter(destination: output)
        try writer.write(int32: Int32(bitPattern: GGMLModelHeader.magic))
        for value in layout.hyperparameters.headerValues { try writer.write(int32: Int32(value)) }
        try writer.write(int32: GGMLFileType.f16.rawValue)
        try writer.write(int32: Int32(filters.melCount))
        try writer.write(int32: Int32(filters.binCount))
        try writer.write(floats: filters.weights)
        try writer.write(int32: Int32(vocabulary.tokens.count))
        for token in vocabulary.tokens {
            try writer.write(int32: Int32(token.count))
            try writer.write(token)
        }
        for tensor in plan { try tensor.write(from: model, to: writer) }
        let digest = try writer.commit()
        return Result(
            path: output, sha256: digest, byteCount: writer.bytesWritten, hyperparameters: layout.hyperparameters,
            tensorCount: plan.count)
    }

    private func ensureSpace(_ bytes: Int, for output: String) throws(ModelError) {
        let directory = output.contains("/") ? String(output[..<output.lastIndex(of: "/")!]) : "."
        var info = statvfs()
        guard statvfs(directory.isEmpty ? "/" : directory, &info) == 0 else { return }
        let available = Int(info.f_bavail) * Int(info.f_frsize)
        if available < bytes {
            throw ModelError(
                .diskFull,
                "not enough space for \(output): needs \(bytes / 1_000_000) MB, \(available / 1_000_000) MB free; "
                    + "free some space or write elsewhere")
        }
    }
}
