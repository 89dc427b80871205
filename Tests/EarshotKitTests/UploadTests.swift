import EarshotAPI
import EarshotKit
import Foundation
import Testing

/// The uploader against a real server (5 MiB parts, as in production), through the fault-injecting proxy.
@Suite(.serialized) struct UploadTests {
    static let size = 12 << 20  // 3 parts: 5 + 5 + 2 MiB

    private func setUp(_ platform: KitPlatform, provider: TokenProvider? = nil) async throws -> (EarshotClient, URL) {
        let partner = try await platform.createPartner()
        let token = try await platform.userToken(partner: partner)
        let client = EarshotClient(baseURL: platform.base, token: token, tokenProvider: provider)
        return (client, platform.directory.appendingPathComponent("state"))
    }

    @Test func uploadsAMultipartFileWithMonotonicProgressAndTheSameBytesArrive() async throws {
        try await KitPlatform.with { platform in
            let (client, state) = try await setUp(platform)
            let file = try makeTestFile(Self.size, in: platform.directory)
            let upload = try FileUploader(client: client, configuration: .init(stateDirectory: state)).prepare(
                fileAt: file)
            async let result = upload.run()
            var events: [UploadProgress] = []
            for await progress in upload.progress { events.append(progress) }
            let done = try await result

            #expect(done.partsSent == 3 && !done.resumed)
            #expect(platform.proxy.puts == 3)
            #expect(events.first?.completedBytes == 0)
            #expect(
                events.last
                    == UploadProgress(
                        completedBytes: Int64(Self.size), totalBytes: Int64(Self.size), completedParts: 3, totalParts: 3
                    ))
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
            let expected = try sha256(ofFile: file)
            #expect(try await platform.sha256(of: done.downloadURL) == expected)
            #expect(try await client.file(done.fileID).sha256 == expected)
            // The resume state is gone once the upload completed.
            #expect((try? FileManager.default.contentsOfDirectory(atPath: state.path))?.isEmpty ?? true)
        }
    }

    @Test func aNewUploaderResumesAfterCancellationAndSendsOnlyTheMissingParts() async throws {
        try await KitPlatform.with { platform in
            let (client, state) = try await setUp(platform)
            let file = try makeTestFile(Self.size, in: platform.directory)
            platform.proxy.state.withLock { $0.held = [3] }

            let first = try FileUploader(
                client: client, configuration: .init(maxConcurrentParts: 3, stateDirectory: state)
            )
            .prepare(fileAt: file)
            let running = Task { try await first.run() }
            for await progress in first.progress where progress.completedParts == 2 {
                running.cancel()
            }
            await #expect(throws: CancellationError.self) { try await running.value }
            #expect(platform.proxy.puts >= 2)  // part 3 may or may not have reached the proxy before the cancel
            #expect(try FileManager.default.contentsOfDirectory(atPath: state.path).count == 1)

            // A new process would build a new client and uploader; only the journal on disk connects them.
            platform.proxy.state.withLock { $0 = .init() }
            let client2 = EarshotClient(baseURL: platform.base, token: await client.currentToken)
            let second = try FileUploader(client: client2, configuration: .init(stateDirectory: state)).prepare(
                fileAt: file)
            async let result = second.run()
            var events: [UploadProgress] = []
            for await progress in second.progress { events.append(progress) }
            let done = try await result

            #expect(done.resumed && done.partsSent == 1)
            // The proxy may still count the first uploader's cancelled in-flight part 3 after the reset above
            // (cancellation closes the client side; the server finishes reading on its own time), so it sees
            // the second uploader's single PUT plus at most that straggler.
            #expect((1...2).contains(platform.proxy.puts))
            #expect(events.first?.completedParts == 2)
            #expect(events.last?.completedBytes == Int64(Self.size))
            #expect(try await platform.sha256(of: done.downloadURL) == (try sha256(ofFile: file)))
        }
    }

    @Test func transientPartFailuresAreRetried() async throws {
        try await KitPlatform.with { platform in
            let (client, state) = try await setUp(platform)
            let file = try makeTestFile(Self.size, in: platform.directory)
            platform.proxy.state.withLock { $0.failNextPuts = 2 }
            let retry = RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(20))
            let done = try await FileUploader(
                client: client, configuration: .init(maxConcurrentParts: 1, retry: retry, stateDirectory: state)
            ).upload(fileAt: file)
            #expect(platform.proxy.puts == 5)
            #expect(try await platform.sha256(of: done.downloadURL) == (try sha256(ofFile: file)))
        }
    }

    @Test func aPartDamagedOnTheWayIsRefusedByTheServerAndSentAgain() async throws {
        try await KitPlatform.with { platform in
            let (client, state) = try await setUp(platform)
            let file = try makeTestFile(Self.size, in: platform.directory)
            platform.proxy.state.withLock { $0.corruptBodies = 1 }
            let retry = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(10))
            let done = try await FileUploader(
                client: client, configuration: .init(maxConcurrentParts: 1, retry: retry, stateDirectory: state)
            ).upload(fileAt: file)
            #expect(platform.proxy.puts == 4)  // 3 parts, the damaged one twice
            #expect(try await platform.sha256(of: done.downloadURL) == (try sha256(ofFile: file)))
        }
    }

    @Test func aPartDamagedEveryTimeIsAnIntegrityErrorNamingTheServersCheck() async throws {
        try await KitPlatform.with(chunkSize: 64 << 10) { platform in
            let (client, state) = try await setUp(platform)
            let file = try makeTestFile(100_000, in: platform.directory)
            platform.proxy.state.withLock { $0.corruptBodies = .max }
            let retry = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(10))
            let error = await #expect(throws: EarshotError.self) {
                try await FileUploader(
                    client: client, configuration: .init(maxConcurrentParts: 1, retry: retry, stateDirectory: state)
                ).upload(fileAt: file)
            }
            #expect(error?.code == .integrity && error?.wireCode == "BAD_DIGEST" && error?.status == 400)
            #expect(error?.message.contains("x-amz-checksum-crc32") == true)
            #expect(platform.proxy.puts == 2)
        }
    }

    @Test func aStoreWithoutChecksumsHasItsETagCheckedAgainstTheMD5() async throws {
        try await KitPlatform.with(chunkSize: 64 << 10) { platform in
            let (client, state) = try await setUp(platform)
            let file = try makeTestFile(100_000, in: platform.directory)
            platform.proxy.state.withLock { $0.dropChecksums = true }
            let done = try await FileUploader(client: client, configuration: .init(stateDirectory: state)).upload(
                fileAt: file)
            #expect(try await platform.sha256(of: done.downloadURL) == (try sha256(ofFile: file)))

            platform.proxy.state.withLock { $0 = .init(corruptETags: true, dropChecksums: true) }
            let retry = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(10))
            let other = try makeTestFile(100_000, seed: 7, in: platform.directory, name: "other.m4a")
            let error = await #expect(throws: EarshotError.self) {
                try await FileUploader(
                    client: client, configuration: .init(maxConcurrentParts: 1, retry: retry, stateDirectory: state)
                ).upload(fileAt: other)
            }
            #expect(error?.code == .integrity)
            #expect(error?.message.contains("is not the MD5") == true)
            #expect(platform.proxy.puts == 2)
        }
    }

    @Test func cancellationStopsPromptly() async throws {
        try await KitPlatform.with { platform in
            let (client, state) = try await setUp(platform)
            let file = try makeTestFile(Self.size, in: platform.directory)
            platform.proxy.state.withLock { $0.holdAll = true }
            let upload = try FileUploader(client: client, configuration: .init(stateDirectory: state)).prepare(
                fileAt: file)
            let running = Task { try await upload.run() }
            // Wait until every part's PUT is in flight (held by the proxy).
            while platform.proxy.puts < 3 { try await Task.sleep(for: .milliseconds(10)) }
            let clock = ContinuousClock()
            let start = clock.now
            running.cancel()
            await #expect(throws: CancellationError.self) { try await running.value }
            #expect(clock.now - start < .seconds(2))
        }
    }
}
