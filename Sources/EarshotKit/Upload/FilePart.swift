import Foundation

/// Reads one part of a file with `FileHandle`, in bounded chunks, hashing as it goes.
enum FilePart {
    /// The bytes of part `number` (1-based) and their MD5 hex. Holds at most one part in memory.
    static func read(_ file: URL, number: Int, chunkSize: Int, fileSize: Int64) throws -> (Data, String) {
        let start = Int64(number - 1) * Int64(chunkSize)
        let count = Int(min(Int64(chunkSize), fileSize - start))
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(start))
            var data = Data(capacity: count)
            var md5 = MD5()
            while data.count < count {
                guard let piece = try handle.read(upToCount: min(1 << 20, count - data.count)), !piece.isEmpty else {
                    throw EarshotError(
                        .fileSystem, "\(file.path) is shorter than expected: it changed during the upload")
                }
                piece.withUnsafeBytes { md5.update($0) }
                data.append(piece)
            }
            return (data, MD5.hexString(md5.finalize()))
        } catch let error as EarshotError {
            throw error
        } catch {
            throw EarshotError(.fileSystem, "cannot read part \(number) of \(file.path)", underlying: error)
        }
    }

    /// ETag header value → bare lowercase MD5 hex (strips quotes and a weak prefix).
    static func normalize(_ etag: String) -> String {
        var value = etag.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("W/") { value.removeFirst(2) }
        return value.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
    }
}
