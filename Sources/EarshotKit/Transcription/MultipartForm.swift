import Foundation

/// A `multipart/form-data` body written to a temporary file (the audio copied in 1 MiB chunks).
enum MultipartForm {
    static func write(
        fields: [(String, String)], file: URL, fieldName: String
    ) throws -> (url: URL, contentType: String) {
        let boundary = "earshot-\(UUID().uuidString)"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-form-\(UUID().uuidString)")
        do {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let out = try FileHandle(forWritingTo: url)
            defer { try? out.close() }
            var head = ""
            for (name, value) in fields {
                head += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
            }
            let filename = file.lastPathComponent.replacingOccurrences(of: "\"", with: "")
            head +=
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(fieldName)\"; filename=\"\(filename)\"\r\n"
            head += "Content-Type: application/octet-stream\r\n\r\n"
            try out.write(contentsOf: Data(head.utf8))
            let input = try FileHandle(forReadingFrom: file)
            defer { try? input.close() }
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                try out.write(contentsOf: chunk)
            }
            try out.write(contentsOf: Data("\r\n--\(boundary)--\r\n".utf8))
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw EarshotError(.fileSystem, "cannot prepare the upload of \(file.path)", underlying: error)
        }
        return (url, "multipart/form-data; boundary=\(boundary)")
    }
}
