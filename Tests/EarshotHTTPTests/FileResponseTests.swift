import Foundation
import Testing

@testable import EarshotHTTP

private let content: [UInt8] = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }

private func makeFixture() throws -> (router: Router, directory: String) {
    let directory = NSTemporaryDirectory() + "earshot-http-files-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/audio.bin"
    _ = FileManager.default.createFile(atPath: path, contents: Data(content))
    let router = Router()
    router.get("/files/audio") { _, _ in try .file(path: path, contentType: "audio/mpeg") }
    router.get("/files/missing") { _, _ in try .file(path: directory + "/nope") }
    return (router, directory)
}

@Suite(.timeLimit(.minutes(1)))
struct FileResponseTests {
    @Test(arguments: [
        ("bytes=0-99", 0, 99),  // first bytes
        ("bytes=5000-5009", 5000, 5009),  // middle
        ("bytes=-300", 9700, 9999),  // suffix
        ("bytes=9990-", 9990, 9999),  // open-ended
        ("bytes=9000-20000", 9000, 9999),  // last past the end is clamped
    ])
    func satisfiableRangeIs206WithContentRange(range: String, first: Int, last: Int) async throws {
        let fixture = try makeFixture()
        defer { try? FileManager.default.removeItem(atPath: fixture.directory) }
        try await withServer(fixture.router) { port in
            let response = try await raw(port, "GET", "/files/audio", headers: [("Range", range)])
            #expect(response.status == 206)
            #expect(response.headers["Content-Range"] == "bytes \(first)-\(last)/10000")
            #expect(response.headers["Content-Length"] == String(last - first + 1))
            #expect(response.body == Array(content[first...last]))
            #expect(response.headers["Content-Type"] == "audio/mpeg")
        }
    }

    @Test(arguments: ["bytes=10000-", "bytes=20000-20010", "bytes=-0"])
    func rangeBeyondTheEndIs416(range: String) async throws {
        let fixture = try makeFixture()
        defer { try? FileManager.default.removeItem(atPath: fixture.directory) }
        try await withServer(fixture.router) { port in
            let response = try await raw(port, "GET", "/files/audio", headers: [("Range", range)])
            #expect(response.status == 416)
            #expect(response.headers["Content-Range"] == "bytes */10000")
            #expect(response.text.contains("RANGE_NOT_SATISFIABLE"))
            #expect(response.headers["X-Request-Id"] != nil)
        }
    }

    @Test(arguments: ["bytes=abc", "bytes=5-1", "items=0-10", "bytes=0-1,5-6", "bytes=", "bytes=--5"])
    func malformedOrMultipleRangeServesTheWholeFile(range: String) async throws {
        let fixture = try makeFixture()
        defer { try? FileManager.default.removeItem(atPath: fixture.directory) }
        try await withServer(fixture.router) { port in
            let response = try await raw(port, "GET", "/files/audio", headers: [("Range", range)])
            #expect(response.status == 200)
            #expect(response.body == content)
            #expect(response.headers["Accept-Ranges"] == "bytes")
        }
    }

    @Test func headSendsHeadersOnlyAndConditionalGetIs304() async throws {
        let fixture = try makeFixture()
        defer { try? FileManager.default.removeItem(atPath: fixture.directory) }
        try await withServer(fixture.router) { port in
            let head = try await raw(port, "HEAD", "/files/audio")
            #expect(head.status == 200)
            #expect(head.headers["Content-Length"] == "10000")
            #expect(head.headers["Accept-Ranges"] == "bytes")
            #expect(head.headers["Last-Modified"]?.hasSuffix(" GMT") == true)
            #expect(head.body.isEmpty)
            let etag = try #require(head.headers["ETag"])
            let cached = try await raw(port, "GET", "/files/audio", headers: [("If-None-Match", etag)])
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)
            let whole = try await raw(port, "GET", "/files/audio")
            #expect(whole.status == 200)
            #expect(whole.body == content)
            let missing = try await raw(port, "GET", "/files/missing")
            #expect(missing.status == 404)
        }
    }

    @Test func byteRangeResolution() {
        #expect(ByteRange.resolve(nil, size: 10) == .whole)
        #expect(ByteRange.resolve("bytes=0-0", size: 10) == .partial(first: 0, last: 0))
        #expect(ByteRange.resolve("BYTES = 2-3 ", size: 10) == .whole)  // space before `=` is not the grammar
        #expect(ByteRange.resolve("bytes=-20", size: 10) == .partial(first: 0, last: 9))
        #expect(ByteRange.resolve("bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRange.resolve("bytes=99999999999999999999-", size: 10) == .whole)
    }
}
