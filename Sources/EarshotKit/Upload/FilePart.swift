import Foundation

/// Reads one part of a file with `FileHandle`, in bounded chunks, checksumming as it goes.
enum FilePart {
    /// The bytes of part `number` (1-based) and their CRC-32. Holds at most one part in memory.
    static func read(_ file: URL, number: Int, chunkSize: Int, fileSize: Int64) throws -> (Data, UInt32) {
        let start = Int64(number - 1) * Int64(chunkSize)
        let count = Int(min(Int64(chunkSize), fileSize - start))
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(start))
            var data = Data(capacity: count)
            var crc = CRC32()
            while data.count < count {
                guard let piece = try handle.read(upToCount: min(1 << 20, count - data.count)), !piece.isEmpty else {
                    throw EarshotError(
                        .fileSystem, "\(file.path) is shorter than expected: it changed during the upload")
                }
                piece.withUnsafeBytes { crc.update($0) }
                data.append(piece)
            }
            return (data, crc.value)
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
