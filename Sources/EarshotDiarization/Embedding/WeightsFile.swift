import Foundation

/// Reader for the ESWT weights file written by `scripts/setup-diarization` (format in docs/diarization.md):
/// `"ESWT0001"`, UInt32 LE header length, JSON header `{model, dtype, tensors: [{name, shape, offset}]}`, then
/// float32 little-endian data (offsets in bytes from the start of the data block).
struct WeightsFile {
    struct Entry: Decodable {
        var name: String
        var shape: [Int]
        var offset: Int
    }
    struct Header: Decodable {
        var model: String
        var dtype: String
        var tensors: [Entry]
    }

    let header: Header
    private let tensors: [String: [Float]]

    init(url: URL) throws(DiarizationError) {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw DiarizationError(
                .weightsMissing, "no speaker-embedding weights at \(url.path): run scripts/setup-diarization")
        }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw DiarizationError(.weightsMissing, "cannot read \(url.path): \(error)", underlying: error)
        }
        func invalid(_ why: String) -> DiarizationError {
            DiarizationError(.weightsInvalid, "\(url.path): \(why); delete it and run scripts/setup-diarization")
        }
        guard data.count >= 12, data.prefix(8) == Data("ESWT0001".utf8) else { throw invalid("not an ESWT0001 file") }
        let headerLength = data[8..<12].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        guard 12 + headerLength <= data.count else { throw invalid("truncated header") }
        let header: Header
        do { header = try JSONDecoder().decode(Header.self, from: data[12..<(12 + headerLength)]) } catch {
            throw invalid("bad JSON header (\(error))")
        }
        guard header.dtype == "float32-le" else { throw invalid("unsupported dtype \(header.dtype)") }
        let base = 12 + headerLength
        var tensors: [String: [Float]] = [:]
        for entry in header.tensors {
            let count = entry.shape.reduce(1, *)
            let start = base + entry.offset
            guard entry.offset >= 0, start + 4 * count <= data.count else {
                throw invalid("tensor \(entry.name) out of range")
            }
            var values = [Float](repeating: 0, count: count)
            values.withUnsafeMutableBytes { dst in
                data.withUnsafeBytes { src in
                    dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[start..<(start + 4 * count)]))
                }
            }
            tensors[entry.name] = values.map { Float(bitPattern: UInt32(littleEndian: $0.bitPattern)) }
        }
        self.header = header
        self.tensors = tensors
    }

    /// The tensor `name` flattened row-major; throws unless its shape is `shape`.
    func tensor(_ name: String, shape: [Int]) throws(DiarizationError) -> [Float] {
        guard let entry = header.tensors.first(where: { $0.name == name }), let values = tensors[name] else {
            throw DiarizationError(.weightsInvalid, "weights file has no tensor \(name)")
        }
        guard entry.shape == shape else {
            throw DiarizationError(.weightsInvalid, "tensor \(name) has shape \(entry.shape), expected \(shape)")
        }
        return values
    }
}
