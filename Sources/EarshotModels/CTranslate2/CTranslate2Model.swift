/// The index of a CTranslate2 `model.bin`: spec name and revision, and every variable's name, shape, dtype and
/// byte range. Variable data stays on disk and is read on demand, one variable at a time.
///
/// Binary layout (little-endian), binary versions 4–6:
/// `u32 version`, `string spec`, `u32 spec_revision`, `u32 n_variables`, then per variable
/// `string name`, `u8 rank`, `u32 dims[rank]`, `u8 dtype`, `u32 n_bytes`, data; then
/// `u32 n_aliases` and (`string alias`, `string target`) pairs. A string is `u16 length` (counting its NUL),
/// the bytes, and the NUL.
struct CTranslate2Model {
    /// Element type of a CTranslate2 variable (the numbering of CTranslate2's `DataType`).
    enum DataType: UInt8 {
        case float32 = 0
        case int8 = 1
        case int16 = 2
        case int32 = 3
        case float16 = 4
        case bfloat16 = 5

        var size: Int {
            switch self {
            case .int8: 1
            case .int16, .float16, .bfloat16: 2
            case .float32, .int32: 4
            }
        }
    }

    struct Variable {
        let name: String
        let shape: [Int]
        let dataType: DataType
        /// Offset of the first data byte in the file.
        let offset: Int
        let byteCount: Int

        var elementCount: Int { shape.reduce(1, *) }
    }

    static let supportedBinaryVersions: ClosedRange<UInt32> = 4...6

    let path: String
    let binaryVersion: UInt32
    let spec: String
    let specRevision: UInt32
    let variables: [String: Variable]
    let aliases: [String: String]
    let reader: FileReader

    /// Parses the header and variable index of `path` (reads only headers; seeks over data).
    init(path: String) throws(ModelError) {
        let reader = try FileReader(path: path)
        self.path = path
        self.reader = reader
        var offset = 0

        func bytes(_ count: Int) throws(ModelError) -> ByteCursor {
            guard offset + count <= reader.size else {
                throw ModelError(.malformedModel, "\(path) is truncated at byte \(offset) (CTranslate2 header)")
            }
            let cursor = ByteCursor(try reader.read(count: count, at: offset), source: path)
            offset += count
            return cursor
        }
        func u8() throws(ModelError) -> UInt8 {
            var c = try bytes(1)
            return try c.uint8()
        }
        func u16() throws(ModelError) -> UInt16 {
            var c = try bytes(2)
            return try c.uint16()
        }
        func u32() throws(ModelError) -> UInt32 {
            var c = try bytes(4)
            return try c.uint32()
        }
        func string() throws(ModelError) -> String {
            let length = Int(try u16())
            guard length > 0, length < 4096 else {
                throw ModelError(.malformedModel, "\(path): bad string length \(length) at byte \(offset - 2)")
            }
            let raw = try reader.read(count: length, at: offset)
            offset += length
            return String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }

        binaryVersion = try u32()
        guard Self.supportedBinaryVersions.contains(binaryVersion) else {
            throw ModelError(
                .unsupportedModel,
                "\(path): CTranslate2 binary version \(binaryVersion) is not supported (supported: 4–6); "
                    + "re-export the model with a current ct2-transformers-converter")
        }
        spec = try string()
        specRevision = try u32()
        let count = Int(try u32())
        var variables: [String: Variable] = [:]
        variables.reserveCapacity(count)
        for _ in 0..<count {
            let name = try string()
            let rank = Int(try u8())
            var shape: [Int] = []
            for _ in 0..<rank { shape.append(Int(try u32())) }
            let typeID = try u8()
            guard let dataType = DataType(rawValue: typeID) else {
                throw ModelError(
                    .unsupportedModel,
                    "\(path): variable \(name) has CTranslate2 dtype \(typeID), which is not supported")
            }
            let byteCount = Int(try u32())
            guard byteCount == shape.reduce(1, *) * dataType.size else {
                throw ModelError(
                    .malformedModel, "\(path): variable \(name) has \(byteCount) bytes for shape \(shape) \(dataType)")
            }
            guard offset + byteCount <= reader.size else {
                throw ModelError(.malformedModel, "\(path) is truncated inside variable \(name)")
            }
            variables[name] = Variable(
                name: name, shape: shape, dataType: dataType, offset: offset, byteCount: byteCount)
            offset += byteCount
        }
        var aliases: [String: String] = [:]
        if offset < reader.size {
            let aliasCount = Int(try u32())
            for _ in 0..<aliasCount {
                let alias = try string()
                aliases[alias] = try string()
            }
        }
        self.variables = variables
        self.aliases = aliases
    }

    /// The variable called `name` (following aliases).
    func variable(_ name: String) -> Variable? {
        variables[name] ?? aliases[name].flatMap { variables[$0] }
    }

    /// The variable called `name`, or a `malformedModel` error naming it.
    func require(_ name: String) throws(ModelError) -> Variable {
        guard let variable = variable(name) else {
            throw ModelError(.malformedModel, "\(path): missing variable \(name)")
        }
        return variable
    }

    /// An integer scalar (`num_heads` and similar).
    func scalar(_ name: String) throws(ModelError) -> Int {
        let v = try require(name)
        let raw = try reader.read(count: v.byteCount, at: v.offset)
        var cursor = ByteCursor(raw, source: path)
        switch v.dataType {
        case .int8: return Int(Int8(bitPattern: try cursor.uint8()))
        case .int16: return Int(Int16(bitPattern: try cursor.uint16()))
        case .int32: return Int(try cursor.int32())
        default: throw ModelError(.malformedModel, "\(path): \(name) is not an integer scalar")
        }
    }

    /// Reads `byteCount` bytes of a variable's data starting `byteOffset` bytes into it.
    func read(_ variable: Variable, byteOffset: Int = 0, byteCount: Int? = nil) throws(ModelError) -> [UInt8] {
        let count = byteCount ?? (variable.byteCount - byteOffset)
        precondition(byteOffset + count <= variable.byteCount)
        return try reader.read(count: count, at: variable.offset + byteOffset)
    }
}
