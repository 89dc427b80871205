import EarshotCrypto
import EarshotHTTP
import EarshotTestSupport
import Foundation
import Testing

struct UploadOutcome: Sendable {
    let response: RawResponse
    let sha256: String
    let md5: String
    let peakResidentGrowth: Int
}

/// Streams `size` pseudo-random bytes as one PUT with Content-Length, hashing them on the client side, and tracks
/// the process's peak RSS growth while doing so.
func streamUpload(port: Int, path: String, size: Int) async throws -> UploadOutcome {
    try await offThread {
        let baseline = IsolatedProcess.residentBytes()
        var peak = baseline
        let connection = try RawConnection(port: port, timeout: 60)
        try connection.send("PUT \(path) HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\nConnection: close\r\n\r\n")
        var sha = try StreamingHasher(.sha256)
        var md5 = try StreamingHasher(.md5)
        var generator = SystemRandomNumberGenerator()
        var block = (0..<65536).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var sent = 0
        var index: UInt64 = 0
        while sent < size {
            withUnsafeBytes(of: index) { counter in
                for i in 0..<8 { block[i] = counter[i] }
            }
            let count = min(block.count, size - sent)
            let chunk = Array(block[0..<count])
            sha.update(chunk)
            md5.update(chunk)
            try connection.send(chunk)
            sent += count
            index += 1
            if index % 128 == 0 { peak = max(peak, IsolatedProcess.residentBytes()) }
        }
        let response = try connection.readResponse()
        peak = max(peak, IsolatedProcess.residentBytes())
        return UploadOutcome(
            response: response, sha256: sha.finalize().hex, md5: md5.finalize().hex, peakResidentGrowth: peak - baseline
        )
    }
}

private func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "earshot-http-upload-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite(.serialized, .timeLimit(.minutes(2)))
struct UploadTests {
    @Test func hundredMegabyteUploadGoesToDiskWithFlatMemoryAndCorrectDigests() async throws {
        guard try await IsolatedProcess.runsIsolated() else { return }  // RSS must not count other suites
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let router = Router()
        router.put("/upload", body: .file(limit: 200 << 20, directory: directory)) { request, _ in
            guard case .file(let upload) = request.body else { throw HTTPError.invalidArgument("expected a file") }
            // Keep it: a handler moves the temporary file into place.
            guard rename(upload.path, directory + "/kept.bin") == 0 else { throw HTTPError.internal(requestID: "") }
            return try .json(["sha256": upload.sha256.hex, "md5": upload.md5.hex, "bytes": String(upload.byteCount)])
        }
        let size = 100 << 20
        let outcome = try await withServer(router) { port in
            try await streamUpload(port: port, path: "/upload", size: size)
        }
        #expect(outcome.response.status == 200)
        let body = try JSONDecoder().decode([String: String].self, from: Data(outcome.response.body))
        #expect(body["bytes"] == String(size))
        #expect(body["sha256"] == outcome.sha256)
        #expect(body["md5"] == outcome.md5)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/kept.bin")
        #expect((attributes[.size] as? Int) == size)
        #expect(outcome.peakResidentGrowth < 30 << 20, "RSS grew by \(outcome.peakResidentGrowth >> 20) MiB")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".part") }
        #expect(leftovers.isEmpty)
    }

    @Test func slowStreamConsumerGetsEveryByteWithBoundedMemory() async throws {
        guard try await IsolatedProcess.runsIsolated() else { return }  // RSS must not count other suites
        let router = Router()
        router.put("/stream", body: .stream(limit: 64 << 20)) { request, _ in
            guard case .stream(let body) = request.body else { throw HTTPError.invalidArgument("expected a stream") }
            var sha = try StreamingHasher(.sha256)
            var count = 0
            var chunks = 0
            for try await chunk in body {
                sha.update(chunk)
                count += chunk.count
                chunks += 1
                if chunks % 64 == 0 { try await Task.sleep(for: .milliseconds(2)) }  // slower than the client
            }
            return .text("\(count) \(sha.finalize().hex)")
        }
        let size = 32 << 20
        let outcome = try await withServer(router) { port in
            try await streamUpload(port: port, path: "/stream", size: size)
        }
        #expect(outcome.response.status == 200)
        #expect(outcome.response.text == "\(size) \(outcome.sha256)")
        #expect(outcome.peakResidentGrowth < 30 << 20, "RSS grew by \(outcome.peakResidentGrowth >> 20) MiB")
    }

    /// libmicrohttpd 0.9.75 (in epoll mode, at least) may not notice a client that sent its last bytes and closed at once;
    /// the connection timeout then ends the request, and the partial file must go with it.
    @Test func abortedUploadLeavesNoTemporaryFile() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let router = Router()
        router.put("/upload", body: .file(limit: 10 << 20, directory: directory)) { _, _ in .empty() }
        try await withServer(router, configuration: .test { $0.connectionTimeout = .seconds(1) }) { port in
            try await offThread {
                let connection = try RawConnection(port: port)
                try connection.send("PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
                try connection.send(Array(repeating: 7, count: 300_000))
            }  // the connection is closed here, mid-body
            var files: [String] = ["?"]
            for _ in 0..<400 where !files.isEmpty {
                try await Task.sleep(for: .milliseconds(10))
                files = try FileManager.default.contentsOfDirectory(atPath: directory)
            }
            #expect(files.isEmpty)
        }
    }
}
