/// One tensor of the output file: its ggml name and shape, and the slice of a CTranslate2 variable it comes from.
struct TensorPlan {
    /// whisper.cpp / OpenAI name, e.g. `decoder.blocks.0.cross_attn.key.weight`.
    let name: String
    /// Shape in PyTorch order (outermost first); the file stores it innermost first, as ggml does.
    let shape: [Int]
    let source: CTranslate2Model.Variable
    /// First element of `source` to copy (rows of a fused projection are contiguous).
    let elementOffset: Int
    /// True for vectors, convolution biases and positional embeddings; matrices are float16.
    let outputIsFloat32: Bool

    var elementCount: Int { shape.reduce(1, *) }
    var outputByteCount: Int { elementCount * (outputIsFloat32 ? 4 : 2) }

    private static let chunkElements = 1 << 20

    /// Writes the tensor header and data, converting the element type chunk by chunk.
    func write(from model: CTranslate2Model, to writer: AtomicFileWriter) throws(ModelError) {
        guard elementOffset + elementCount <= source.elementCount else {
            throw ModelError(
                .malformedModel,
                "\(model.path): \(source.name) has \(source.elementCount) elements; \(name) needs "
                    + "\(elementOffset + elementCount) (shape \(source.shape))")
        }
        let nameBytes = Array(name.utf8)
        try writer.write(int32: Int32(shape.count))
        try writer.write(int32: Int32(nameBytes.count))
        try writer.write(int32: outputIsFloat32 ? 0 : 1)
        for dimension in shape.reversed() { try writer.write(int32: Int32(dimension)) }
        try writer.write(nameBytes)

        let inputSize = source.dataType.size
        var done = 0
        while done < elementCount {
            let count = min(Self.chunkElements, elementCount - done)
            let raw = try model.read(
                source, byteOffset: (elementOffset + done) * inputSize, byteCount: count * inputSize)
            try convert(raw, count: count, to: writer)
            done += count
        }
    }

    private func convert(_ raw: [UInt8], count: Int, to writer: AtomicFileWriter) throws(ModelError) {
        switch (source.dataType, outputIsFloat32) {
        case (.float16, false), (.float32, true):
            try writer.write(raw)
        case (.float16, true):
            let out = raw.withUnsafeBytes { input in
                (0..<count).map {
                    Float(Float16(bitPattern: input.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)))
                }
            }
            try writer.write(floats: out)
        case (.float32, false):
            let out = raw.withUnsafeBytes { input in
                (0..<count).map { Float16(input.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self)).bitPattern }
            }
            try writer.write(halves: out)
        case (.bfloat16, _):
            let floats = raw.withUnsafeBytes { input in
                (0..<count).map {
                    Float(bitPattern: UInt32(input.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) << 16)
                }
            }
            if outputIsFloat32 {
                try writer.write(floats: floats)
            } else {
                try writer.write(halves: floats.map { Float16($0).bitPattern })
            }
        default:
            throw ModelError(
                .unsupportedModel,
                "\(source.name) is \(source.dataType); only float16/float32/bfloat16 can be converted")
        }
    }
}
