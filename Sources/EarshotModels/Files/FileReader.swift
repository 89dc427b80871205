import EarshotCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A model file read at explicit offsets through EarshotCore's ``ReadOnlyFile``, so large model files are never
/// loaded whole; reads are exact (a short one means a truncated model) and errors are ``ModelError``s.
///
/// Owned by one task at a time; closes its descriptor on deinit.
final class FileReader {
    private let file: ReadOnlyFile
    /// File size in bytes at open time.
    let size: Int

    var path: String { file.path }

    init(path: String) throws(ModelError) {
        do {
            file = try ReadOnlyFile(path: path)
        } catch {
            if error.code == ENOENT { throw ModelError(.notFound, "\(path): no such file", underlying: error) }
            throw ModelError(.ioFailure, "cannot \(error.call) \(path): \(error.reason)", underlying: error)
        }
        if (file.status.st_mode & S_IFMT) == S_IFDIR {
            throw ModelError(.notAModel, "\(path) is a directory, not a model file")
        }
        size = Int(file.size)
    }

    /// Reads exactly `buffer.count` bytes at `offset` into `buffer`; throws on a short read (truncated file).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(ModelError) {
        let done: Int
        do { done = try file.read(into: buffer, at: Int64(offset)) } catch {
            throw ModelError(.ioFailure, "cannot read \(path): \(error.reason)", underlying: error)
        }
        guard done == buffer.count else {
            throw ModelError(
                .malformedModel, "\(path) is truncated: needed \(buffer.count) bytes at offset \(offset + done)")
        }
    }

    /// Reads exactly `count` bytes at `offset`.
    func read(count: Int, at offset: Int) throws(ModelError) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(ModelError) in try read(into: buffer, at: offset) }
        }
        .get()
        return bytes
    }

    /// Reads at most `count` bytes at `offset` (fewer at end of file).
    func readPrefix(count: Int, at offset: Int = 0) throws(ModelError) -> [UInt8] {
        try read(count: max(0, min(count, size - offset)), at: offset)
    }
}

/// A little-endian cursor over bytes read from a model header.
struct ByteCursor {
    let bytes: [UInt8]
    private(set) var position = 0
    let source: String

    init(_ bytes: [UInt8], source: String) {
        self.bytes = bytes
        self.source = source
    }

    var remaining: Int { bytes.count - position }

    mutating func take(_ count: Int) throws(ModelError) -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else {
            throw ModelError(.malformedModel, "\(source) is truncated at byte \(position)")
        }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func uint8() throws(ModelError) -> UInt8 { try take(1).first! }

    mutating func uint16() throws(ModelError) -> UInt16 {
        let b = try take(2)
        return UInt16(b[b.startIndex]) | UInt16(b[b.startIndex + 1]) << 8
    }

    mutating func uint32() throws(ModelError) -> UInt32 {
        let b = try take(4)
        var value: UInt32 = 0
        for (i, byte) in b.enumerated() { value |= UInt32(byte) << (8 * UInt32(i)) }
        return value
    }

    mutating func int32() throws(ModelError) -> Int32 { Int32(bitPattern: try uint32()) }
}
