import EarshotAPI
import EarshotKit
import EarshotServerTestSupport
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The SDK's uploader, unchanged, against a server with direct uploads (PostgreSQL + SeaweedFS through
/// `scripts/with-backends`): parts go to the bucket's presigned URLs, and an interrupted upload resumes from the
/// parts the bucket lists.
@Suite(
    .serialized,
    .enabled(if: ScaleOutBackends.available, "no PostgreSQL/S3: run through scripts/with-backends (make test does)"))
struct DirectUploadResumeTests {
    static let size = 12 << 20  // 3 parts: 5 + 5 + 2 MiB

    @Test func anInterruptedUploadStraightToTheBucketResumesWithTheMissingPartsOnly() async throws {
        try await TestPlatform.with(backend: .scaled) { configuration in
            configuration.uploadDirect = true
            configuration.uploadChunkSize = 5 << 20
            configuration.uploadMaxFileSize = 64 << 20
        } _: { platform in
            let (_, _, token) = try await platform.newUser()
            let client = EarshotClient(baseURL: platform.base, token: token)
            let state = platform.directory.appendingPathComponent("state")
            let file = try makeTestFile(Self.size, in: platform.directory)

            let first = try FileUploader(
                client: client, configuration: .init(maxConcurrentParts: 1, stateDirectory: state)
            ).prepare(fileAt: file)
            let running = Task { try await first.run() }
            for await progress in first.progress where progress.completedParts == 1 { running.cancel() }
            await #expect(throws: CancellationError.self) { try await running.value }
            #expect(try FileManager.default.contentsOfDirectory(atPath: state.path).count == 1, "the journal stays")

            // A new process: a new client and uploader, connected to the first only by the journal on disk.
            let second = try FileUploader(
                client: EarshotClient(baseURL: platform.base, token: token),
                configuration: .init(stateDirectory: state)
            ).prepare(fileAt: file)
            let done = try await second.run()
            #expect(done.resumed && (1...2).contains(done.partsSent), "sent \(done.partsSent) of 3 parts again")
            let expected = try sha256(ofFile: file)
            #expect(try await client.file(done.fileID).sha256 == expected)
            let (downloaded, _) = try await URLSession.shared.data(from: URL(string: done.downloadURL)!)
            #expect(downloaded == (try Data(contentsOf: file)))
            let keys = try await Application.openBlobStore(platform.configuration).list(prefix: "").map(\.rawValue)
            #expect(keys == ["files/\(done.fileID)"], "no part blobs: the parts went to the bucket's multipart upload")
        }
    }
}
