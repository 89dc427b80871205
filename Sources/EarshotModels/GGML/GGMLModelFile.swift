/// A whisper.cpp ggml model file read in full structure: header, mel filterbank, vocabulary and the index of
/// every tensor (name, shape, element type, byte range). Tensor data is not loaded.
///
/// Used to check that a file is complete (every tensor whisper.cpp expects, nothing truncated) before an
/// engine spends seconds loading it, and by the tests to compare converter output with expectations.
struct GGMLModelFile {
    struct Tensor: Equatable {
        let name: String
        /// Dimensions innermost first, as stored (ggml order).
        let dimensions: [Int]
        /// ggml element type (0 f32, 1 f16, 8 q8_0, …).
        let type: Int32
        let offset: Int
        let byteCount: Int
    }

    let path: String
    let header: GGMLModelHeader
    let melCount: Int
    let binCount: Int
    /// Offset of the filterbank's first float.
    let filtersOffset: Int
    let tokens: [[UInt8]]
    let tensors: [Tensor]
    let size: Int

    /// (bytes per block, elements per block) of ggml's tensor types.
    static let typeSizes: [Int32: (bytes: Int, block: Int)] = [
        0: (4, 1), 1: (2, 1), 2: (18, 32), 3: (20, 32), 6: (22, 32), 7: (24, 32), 8: (34, 32), 9: (36, 32),
        10: (84, 256), 11: (110, 256), 12: (144, 256), 13: (176, 256), 14: (210, 256), 30: (2, 1),
    ]

    init(path: String) throws(ModelError) {
        let header = try GGMLModelHeader.read(path: path)
        let reader = try FileReader(path: path)
        self.path = path
        self.header = header
        size = reader.size
        var offset = 48

        func int32s(_ count: Int) throws(ModelError) -> [Int] {
            var cursor = ByteCursor(try reader.read(count: 4 * count, at: offset), source: path)
            offset += 4 * count
            var values: [Int] = []
            for _ in 0..<count { values.append(Int(try cursor.int32())) }
            return values
        }
        let filterShape = try int32s(2)
        melCount = filterShape[0]
        binCount = filterShape[1]
        guard melCount == header.hyperparameters.melCount, binCount > 0, binCount < 100_000 else {
            throw ModelError(.malformedModel, "\(path): mel filterbank \(filterShape) does not match the header")
        }
        filtersOffset = offset
        offset += 4 * melCount * binCount
        let tokenCount = try int32s(1)[0]
        guard tokenCount >= 0, tokenCount <= header.hyperparameters.vocabularySize else {
            throw ModelError(
                .malformedModel,
                "\(path): \(tokenCount) tokens for a vocabulary of "
                    + "\(header.hyperparameters.vocabularySize)")
        }
        // The vocabulary is ~0.5 MB: read it in one go.
        let vocabularyBytes = try reader.readPrefix(count: tokenCount * 132 + 4, at: offset)
        var cursor = ByteCursor(vocabularyBytes, source: path)
        var tokens: [[UInt8]] = []
        tokens.reserveCapacity(tokenCount)
        for _ in 0..<tokenCount {
            let length = Int(try cursor.uint32())
            tokens.append(Array(try cursor.take(length)))
        }
        self.tokens = tokens
        offset += cursor.position

        var tensors: [Tensor] = []
        while offset < reader.size {
            let fields = try int32s(3)
            let (rank, nameLength, type) = (fields[0], fields[1], Int32(fields[2]))
            guard (1...4).contains(rank), (1...256).contains(nameLength), let size = Self.typeSizes[type] else {
                throw ModelError(.malformedModel, "\(path): bad tensor header at byte \(offset - 12)")
            }
            let dimensions = try int32s(rank)
            let name = String(decoding: try reader.read(count: nameLength, at: offset), as: UTF8.self)
            offset += nameLength
            let elements = dimensions.reduce(1, *)
            let byteCount = elements / size.block * size.bytes
            guard offset + byteCount <= reader.size else {
                throw ModelError(.malformedModel, "\(path) is truncated inside tensor \(name)")
            }
            tensors.append(Tensor(name: name, dimensions: dimensions, type: type, offset: offset, byteCount: byteCount))
            offset += byteCount
        }
        self.tensors = tensors
    }

    /// The number of tensors whisper.cpp's loader expects for these dimensions.
    var expectedTensorCount: Int {
        let h = header.hyperparameters
        return 11 + 15 * h.audioLayers + 24 * h.textLayers
    }

    /// Throws unless every tensor whisper.cpp expects is present.
    func checkComplete() throws(ModelError) {
        guard tensors.count == expectedTensorCount else {
            throw ModelError(
                .malformedModel,
                "\(path) has \(tensors.count) tensors; a \(header.hyperparameters.sizeName) Whisper model has "
                    + "\(expectedTensorCount) (the file is incomplete or not a Whisper model)")
        }
    }
}
