import EarshotCrypto
import EarshotHTTP
import EarshotTestSupport
import Foundation
import Synchronization
import Testing

/// `x-amz-checksum-crc32` / `-sha256` on a file-body route, driven by Python's `urllib` with the checksums computed
/// by Python's `zlib` and `hashlib` (an implementation independent of the server's).
@Suite(.serialized, .timeLimit(.minutes(2)))
struct BodyChecksumTests {
    static let python = TestEnvironment.home.appendingPathComponent("venv/bin/python")

    /// Sends the cases and prints one JSON object per case: status, code, echoed headers, the handler's answer.
    static let client = #"""
        import base64, hashlib, json, os, sys, urllib.request, urllib.error, zlib
        port = sys.argv[1]
        body = os.urandom(300_001)
        def crc(data): return base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()
        def sha(data): return base64.b64encode(hashlib.sha256(data).digest()).decode()
        cases = {
            "none": {},
            "crc32": {"x-amz-checksum-crc32": crc(body), "x-amz-sdk-checksum-algorithm": "CRC32"},
            "crc32_wrong": {"x-amz-checksum-crc32": crc(body + b"!")},
            "crc32_malformed": {"x-amz-checksum-crc32": "not base64"},
            "sha256": {"x-amz-checksum-sha256": sha(body)},
            "sha256_wrong": {"x-amz-checksum-sha256": sha(b"other")},
            "both": {"X-Amz-Checksum-CRC32": crc(body), "x-amz-checksum-sha256": sha(body)},
            "crc32c": {"x-amz-checksum-crc32c": "AAAAAA=="},
        }
        out = {"expected_crc32": crc(body), "expected_sha256": sha(body), "sha256_hex": hashlib.sha256(body).hexdigest()}
        for name, headers in cases.items():
            request = urllib.request.Request(f"http://127.0.0.1:{port}/upload", data=body, method="PUT", headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    status, answer, got = response.status, json.loads(response.read()), response.headers
            except urllib.error.HTTPError as error:
                status, answer, got = error.code, json.loads(error.read()), error.headers
            out[name] = {"status": status, "answer": answer, "crc32": got.get("x-amz-checksum-crc32"),
                         "sha256": got.get("x-amz-checksum-sha256")}
        print(json.dumps(out))
        """#

    @Test func fileBodiesAreCheckedAgainstTheClientsChecksumsAndDamagedOnesNeverReachTheHandler() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
            Issue.record("no \(Self.python.path): run scripts/setup")
            return
        }
        let directory = NSTemporaryDirectory() + "earshot-http-checksum-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let handled = Counter()
        let router = Router()
        router.put("/upload", body: .file(limit: 1 << 20, directory: directory)) { request, _ in
            guard case .file(let upload) = request.body else { throw HTTPError.invalidArgument("expected a file") }
            handled.increment()
            return try .json(["sha256": upload.sha256.hex, "crc32": upload.crc32.map { CRC32.base64($0) } ?? "-"])
        }
        let stdout = try await withServer(router) { port in
            let result = try await Program(Self.python).run(["-c", Self.client, String(port)], timeout: .seconds(60))
            try #require(result.status == 0, "\(result)")
            return result.stdout
        }
        let out = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        let crc = try #require(out["expected_crc32"] as? String)
        let sha = try #require(out["expected_sha256"] as? String)
        func outcome(_ name: String) -> (Int, [String: Any], String?, String?) {
            let o = out[name] as? [String: Any] ?? [:]
            return (
                o["status"] as? Int ?? 0, o["answer"] as? [String: Any] ?? [:], o["crc32"] as? String,
                o["sha256"] as? String
            )
        }
        func code(_ answer: [String: Any]) -> String? { (answer["error"] as? [String: Any])?["code"] as? String }
        func message(_ answer: [String: Any]) -> String {
            (answer["error"] as? [String: Any])?["message"] as? String ?? ""
        }

        // No header: stored as before, nothing echoed, no CRC-32 computed.
        var (status, answer, echoedCRC, echoedSHA) = outcome("none")
        #expect(status == 200 && echoedCRC == nil && echoedSHA == nil)
        #expect(answer["crc32"] as? String == "-" && answer["sha256"] as? String == out["sha256_hex"] as? String)
        // The right CRC-32: the handler runs with the same CRC-32 (zlib's), and the answer echoes it.
        (status, answer, echoedCRC, echoedSHA) = outcome("crc32")
        #expect(status == 200 && echoedCRC == crc && echoedSHA == nil)
        #expect(answer["crc32"] as? String == crc)
        // SHA-256, and both at once (header names in any case).
        (status, _, echoedCRC, echoedSHA) = outcome("sha256")
        #expect(status == 200 && echoedCRC == nil && echoedSHA == sha)
        (status, _, echoedCRC, echoedSHA) = outcome("both")
        #expect(status == 200 && echoedCRC == crc && echoedSHA == sha)
        // Damaged bytes: 400 BAD_DIGEST naming both values, nothing echoed.
        (status, answer, echoedCRC, _) = outcome("crc32_wrong")
        #expect(status == 400 && code(answer) == "BAD_DIGEST" && echoedCRC == nil)
        #expect(message(answer).contains(crc) && message(answer).contains("x-amz-checksum-crc32"))
        (status, answer, _, echoedSHA) = outcome("sha256_wrong")
        #expect(status == 400 && code(answer) == "BAD_DIGEST" && echoedSHA == nil)
        // Refused before the body: a malformed value, an algorithm the server does not compute.
        (status, answer, _, _) = outcome("crc32_malformed")
        #expect(status == 400 && code(answer) == "INVALID_ARGUMENT" && message(answer).contains("base64 of 4 bytes"))
        (status, answer, _, _) = outcome("crc32c")
        #expect(
            status == 400 && code(answer) == "INVALID_ARGUMENT" && message(answer).contains("x-amz-checksum-crc32c"))
        // The handler ran for the four accepted bodies only, and no refused body was left on disk.
        #expect(handled.count == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }
}

private final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
