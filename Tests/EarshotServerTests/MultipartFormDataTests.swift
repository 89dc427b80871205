import EarshotHTTP
import Foundation
import Testing

/// The streaming multipart/form-data parser: every split of the body into chunks gives the same parts, files are
/// never held whole, malformed bodies get a clear 400.
@Suite struct MultipartFormDataTests {
    static let boundary = "----earshot7MA4YWxkTrZu0gW"

    static func body(file: [UInt8]) -> [UInt8] {
        var out = Array("preamble to ignore\r\n--\(boundary)\r\n".utf8)
        out += Array("Content-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--\(boundary)\r\n".utf8)
        out += Array(
            "Content-Disposition: form-data; name=\"file\"; filename=\"a \\\"b\\\".wav\"\r\nContent-Type: audio/wav\r\n\r\n"
                .utf8)
        out += file
        out += Array("\r\n--\(boundary)\r\n".utf8)
        out += Array("Content-Disposition: form-data; name=\"timestamp_granularities[]\"\r\n\r\nword\r\n".utf8)
        out += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n\r\n".utf8)
        out += Array("--\(boundary)--\r\nepilogue".utf8)
        return out
    }

    struct Parsed: Equatable {
        var parts: [MultipartFormData.Part] = []
        var bodies: [[UInt8]] = []
        var largestData = 0
    }

    static func parse(_ body: [UInt8], chunk: Int) throws -> Parsed {
        var parser = try MultipartFormData(contentType: "multipart/form-data; boundary=\"\(boundary)\"")
        var parsed = Parsed()
        var index = 0
        while index < body.count {
            let end = min(index + chunk, body.count)
            for event in try parser.feed(body[index..<end]) {
                switch event {
                case .part(let part):
                    parsed.parts.append(part)
                    parsed.bodies.append([])
                case .data(let bytes):
                    parsed.bodies[parsed.bodies.count - 1] += bytes
                    parsed.largestData = max(parsed.largestData, bytes.count)
                case .end: break
                }
            }
            index = end
        }
        try parser.finish()
        return parsed
    }

    @Test(arguments: [1, 2, 3, 7, 45, 46, 47, 1000, 1 << 20])
    func everyChunkingGivesTheSameParts(chunk: Int) throws {
        // File bytes that contain CRLF, dashes and a near-boundary.
        let file =
            Array("\r\n--\r\n----earshot7MA4YWxkTrZu0g\r\n".utf8) + (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let parsed = try Self.parse(Self.body(file: file), chunk: chunk)
        #expect(parsed.parts.map(\.name) == ["model", "file", "timestamp_granularities[]", "empty"])
        #expect(parsed.parts[1].filename == "a \"b\".wav")
        #expect(parsed.parts[1].contentType == "audio/wav")
        #expect(parsed.bodies[0] == Array("whisper-1".utf8))
        #expect(parsed.bodies[1] == file)
        #expect(parsed.bodies[2] == Array("word".utf8))
        #expect(parsed.bodies[3].isEmpty)
        // Streaming: no data event is larger than a chunk plus the boundary held back.
        #expect(parsed.largestData <= chunk + Self.boundary.count + 4)
    }

    @Test func malformedBodiesAreRefusedClearly() throws {
        let full = Self.body(file: [1, 2, 3])
        #expect(throws: HTTPError.self) { try Self.parse(Array(full.prefix(full.count - 20)), chunk: 64) }
        #expect(throws: HTTPError.self) { try MultipartFormData(contentType: "application/json") }
        #expect(throws: HTTPError.self) { try MultipartFormData(contentType: "multipart/form-data") }
        var parser = try MultipartFormData(boundary: "xyz")
        #expect(throws: HTTPError.self) {
            _ = try parser.feed(Array("--xyz\r\nX-Nothing: 1\r\n\r\nbody\r\n--xyz--".utf8))
        }
        #expect(
            MultipartFormData.boundary(fromContentType: "multipart/form-data; boundary=abc; charset=utf-8") == "abc")
    }
}
