import EarshotAPI
import EarshotKit
import EarshotTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's upload across a user token that expires mid-upload and an uploader stopped between parts, and the
/// error codes EarshotKit and the backend surface. Real processes; no speech model needed.
@Suite(.serialized) struct ResumeAndErrorTests {
    /// 8 MiB in 256 KiB parts: 32 parts.
    static let size = 8 << 20

    /// Counts token-provider calls across tasks.
    final class Calls: Sendable {
        private let count = Mutex(0)
        func increment() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    @Test func anUploadStoppedBetweenPartsResumesAcrossTokenExpiryWithOneRefreshAndIsByteIdentical() async throws {
        let ttl = 1
        try await PartnerStack.with(
            earshotArguments: ["--upload-chunk-size", "256KiB"],
            backendEnvironment: ["BACKEND_USER_TOKEN_TTL": "\(ttl)"]
        ) { stack in
            let file = stack.directory.appendingPathComponent("memo.m4a")
            var words = [UInt64](repeating: 0, count: Self.size / 8)
            for index in words.indices { words[index] = UInt64.random(in: 0...UInt64.max) }
            try words.withUnsafeBytes { try Data($0).write(to: file) }
            let state = stack.directory.appendingPathComponent("state")

            // First run: one part at a time, stopped once two parts are on the server.
            let (token, expiresIn) = try await stack.userToken()
            #expect(expiresIn == ttl)
            let first = try FileUploader(
                client: EarshotClient(baseURL: stack.earshot, token: token),
                configuration: .init(maxConcurrentParts: 1, stateDirectory: state)
            ).prepare(fileAt: file)
            let running = Task { try await first.run() }
            var stoppedAt = 0
            for await progress in first.progress where progress.completedParts >= 2 && stoppedAt == 0 {
                stoppedAt = progress.completedParts
                running.cancel()
            }
            await #expect(throws: CancellationError.self) { try await running.value }
            #expect(stoppedAt >= 2 && stoppedAt < 32)

            // The token expires while the upload is stopped: its TTL is 1 s, and the server tolerates 30 s of
            // clock skew, so wait (bounded) until the server refuses it.
            let probe = EarshotClient(baseURL: stack.earshot, token: token)
            let deadline = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < deadline {
                do {
                    _ = try await probe.file("file_probe")
                } catch let error as EarshotError where error.code == .unauthorized {
                    break
                } catch let error as EarshotError where error.code == .notFound {}
                try await Task.sleep(for: .milliseconds(500))
            }

            // Second run, as a restarted app would: a new client holding the now-expired token, a provider that
            // asks the backend, and only the journal on disk connecting it to the first run.
            let refreshes = Calls()
            let client = EarshotClient(
                baseURL: stack.earshot, token: token,
                tokenProvider: {
                    refreshes.increment()
                    return try await stack.userToken().token
                })
            let second = try FileUploader(client: client, configuration: .init(stateDirectory: state)).prepare(
                fileAt: file)
            async let finished = second.run()
            var events: [UploadProgress] = []
            for await progress in second.progress { events.append(progress) }
            let done = try await finished

            #expect(refreshes.value == 1)
            #expect(await client.currentToken != token)
            #expect(done.resumed)
            #expect(done.partsSent <= 32 - 2 && done.partsSent >= 1, "sent \(done.partsSent) of 32")
            #expect((events.first?.completedParts ?? 0) >= 2)
            #expect(events.last?.completedBytes == Int64(Self.size))

            // The assembled file is byte-identical.
            let (downloaded, response) = try await URLSession.shared.data(from: URL(string: done.downloadURL)!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(MD5.hex(Array(downloaded)) == MD5.hex(Array(try Data(contentsOf: file))))
            #expect(downloaded.count == Self.size)
        }
    }

    @Test func errorsSurfaceWithTheirEarshotErrorCodes() async throws {
        try await PartnerStack.with { stack in
            let (token, _) = try await stack.userToken()
            let app = EarshotClient(baseURL: stack.earshot, token: token)
            let state = stack.directory.appendingPathComponent("state")
            let partner = TranscriptionClient(
                client: EarshotClient(
                    baseURL: stack.earshot,
                    tokenProvider: PartnerTokenClient(
                        baseURL: stack.earshot, clientID: stack.clientID, clientSecret: stack.clientSecret
                    ).provider))

            // A user token may upload but never submit tasks: 403 FORBIDDEN.
            let forbidden = await #expect(throws: EarshotError.self) {
                try await TranscriptionClient(client: app).create(.init(fileURL: "file_x", model: "asr-fast"))
            }
            #expect(forbidden?.code == .forbidden && forbidden?.status == 403)
            #expect(forbidden?.requestID?.isEmpty == false)

            // A forged token with no provider to refresh it: 401 UNAUTHORIZED.
            let forged = await #expect(throws: EarshotError.self) {
                try await EarshotClient(baseURL: stack.earshot, token: "eyJhbGciOiJub25lIn0.e30.").file("file_x")
            }
            #expect(forged?.code == .unauthorized && forged?.status == 401)

            // A type the server does not accept: 400 INVALID_ARGUMENT naming it.
            let script = stack.directory.appendingPathComponent("run.exe")
            try Data("MZ".utf8).write(to: script)
            let badType = await #expect(throws: EarshotError.self) {
                try await FileUploader(client: app, configuration: .init(stateDirectory: state)).upload(fileAt: script)
            }
            #expect(badType?.code == .invalidArgument && badType?.message.contains("exe") == true)

            // Another tenant's or a missing task: 404 NOT_FOUND.
            let missing = await #expect(throws: EarshotError.self) { try await partner.get("task_missing") }
            #expect(missing?.code == .notFound)

            // The backend relays Earshot's errors with their status and code: a URL that is not an Earshot
            // DownloadUrl is never fetched.
            let ssrf = try await stack.call(
                "POST", "/recordings/complete", json: ["file_url": "http://169.254.169.254/latest/meta-data"])
            #expect(ssrf.status == 400 && ssrf.errorCode == "INVALID_ARGUMENT")
            // …and refuses what the app's own session does not allow.
            let otherUser = try await stack.call("POST", "/token", json: ["user_id": "bob"])
            #expect(otherUser.status == 403 && otherUser.errorCode == "FORBIDDEN")
            let noSession = try await stack.call("POST", "/token", session: "session-stolen", json: [:])
            #expect(noSession.status == 401)
            let malformed = try await stack.call("POST", "/recordings/complete", body: Data("{".utf8))
            #expect(malformed.status == 400 && malformed.errorCode == "INVALID_ARGUMENT")
            for body in [[:], ["file_url": "x", "file_id": "file_x"], ["file_url": ""]] as [[String: Any]] {
                let ambiguous = try await stack.call("POST", "/recordings/complete", json: body)
                #expect(ambiguous.status == 400, "\(body)")
                #expect(String(decoding: ambiguous.data, as: UTF8.self).contains("exactly one of file_url"))
            }
            // A file id of this partner that does not exist: Earshot's answer, relayed.
            let unknownFile = try await stack.call(
                "POST", "/recordings/complete", json: ["file_id": "file_00000000000000000000"])
            #expect(unknownFile.status == 404 && unknownFile.errorCode == "NOT_FOUND")
            #expect(String(decoding: unknownFile.data, as: UTF8.self).contains("upload it first"))
            let notAnID = try await stack.call("POST", "/recordings/complete", json: ["file_id": "file_missing"])
            #expect(notAnID.status == 400 && notAnID.errorCode == "INVALID_ARGUMENT")
        }
    }

    @Test func theBackendRefusesToStartWithoutItsConfiguration() async throws {
        let backend = Program(TestEnvironment.product("partner-backend"), inheritance: .none)
        let result = try await backend.run(
            environment: ["PATH": "/usr/bin:/bin", "BACKEND_PORT": "70000", "BACKEND_SESSIONS": "no-user-here"])
        #expect(result.status == 64, "\(result)")
        for problem in [
            "EARSHOT_URL is not set", "EARSHOT_CLIENT_ID is not set", "EARSHOT_CLIENT_SECRET is not set",
            "BACKEND_PORT '70000' is not a port number",
            "BACKEND_SESSIONS: 'no-user-here' is not session-token=user-id",
        ] {
            #expect(result.stderr.contains(problem), "\(result.stderr)")
        }
    }
}
