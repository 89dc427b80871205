import EarshotTestSupport
import Foundation
import Testing

/// The log of `earshot serve` as an operator reads it: every line written while serving a request carries that
/// request's `request_id`, and every line written while a background job runs carries its `job_id` and `kind` —
/// whichever component writes it.
@Suite(
    .serialized, .exclusive("speech decoding"),
    .enabled(if: TestEnvironment.exist(TestEnvironment.asrFastModel), "speech models not installed (run `make models`)")
)
struct ServeLogTests {
    /// `key=value` of a logfmt line, or nil.
    static func value(_ key: String, in line: String) -> String? {
        guard let range = line.range(of: " \(key)=") else { return nil }
        return String(line[range.upperBound...].prefix { $0 != " " })
    }

    @Test func everyLineOfARequestOrAJobCarriesItsID() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("serve-log")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Webhooks go to public addresses only unless a network is allowed; this callback is on loopback.
        let server = try await ServeProcess.start(
            dataDirectory: directory.path,
            arguments: ["--model-home", TestEnvironment.home.path, "--webhook-allow-networks", "127.0.0.0/8"],
            logLevel: "info")
        defer { server.stop() }
        let token = try await server.partnerToken()
        let file = try await upload(server.base, token: token, try Data(contentsOf: TestEnvironment.jfk))
        let task =
            try await call(
                server.base, "POST", "/open/partner/transcriptions", token: token,
                json: ["file_url": file, "model": "asr-fast", "callback_url": "http://127.0.0.1:9/unreachable"]
            )["task_id"] as! String
        let done = try await poll(server.base, task, token: token, server: server.child, until: isFinalTask)
        #expect(done["status"] as? String == "SUCCESS", "\(done)")
        // The webhook job for the (unreachable) callback has made its first attempt.
        let deadline = ContinuousClock.now + .seconds(30)
        while !server.child.output(.stderr).contains("kind=webhook"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let lines = server.child.output(.stderr).split(separator: "\n").map(String.init)

        // Requests: the access-log line and every service line logged while serving (the upload's completion).
        let requests = lines.filter { $0.contains("msg=request ") }
        #expect(requests.count >= 5)
        #expect(requests.allSatisfy { Self.value("request_id", in: $0)?.hasPrefix("req_") == true })
        let completed = try #require(lines.first { $0.contains("msg=\"upload completed\"") }, "\(server.diagnostics)")
        let completion = try #require(Self.value("request_id", in: completed))
        #expect(requests.contains { $0.contains("request_id=\(completion) ") && $0.contains("complete-upload") })

        // Jobs: every line of the runner and of the work itself names the job and its kind.
        let transcription = lines.filter { Self.value("job_id", in: $0) == task }
        #expect(transcription.contains { $0.contains("msg=\"job started\"") }, "\(lines.suffix(40))")
        #expect(transcription.contains { $0.contains("msg=\"job succeeded\"") })
        #expect(transcription.allSatisfy { Self.value("kind", in: $0) == "transcription" })
        let jobLines = lines.filter { $0.contains("label=jobs msg=\"job ") }
        #expect(!jobLines.isEmpty)
        #expect(jobLines.allSatisfy { Self.value("job_id", in: $0) != nil && Self.value("kind", in: $0) != nil })
        let webhook = try #require(lines.first { Self.value("kind", in: $0) == "webhook" }, "\(server.diagnostics)")
        #expect(Self.value("job_id", in: webhook)?.hasPrefix("whd_") == true)
    }
}
