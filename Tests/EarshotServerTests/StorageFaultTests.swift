import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 13, findings 5 and 6: a full disk answered 500 while `/readyz` stayed 200, and a killed upload's
/// temporary files stayed in `blobs/.tmp` for an hour. The disk here is a real 8 MiB tmpfs (mounting one needs
/// root, which CI has).
@Suite(
    .serialized, .enabled(if: getuid() == 0, "mounting a tmpfs needs root"),
    .timeLimit(.minutes(30)))
struct StorageFaultTests {
    /// Mounts an 8 MiB tmpfs, runs `body` with its path, unmounts it.
    static func withSmallDisk(_ body: (URL) async throws -> Void) async throws {
        let mountPoint = try TestEnvironment.makeTemporaryDirectory("tmpfs")
        let mount = try await Program(URL(fileURLWithPath: "/bin/mount")).run([
            "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", mountPoint.path,
        ])
        try #require(mount.status == 0, "mount: \(mount.stderr)")
        do {
            try await body(mountPoint)
        } catch {
            _ = try? await Program(URL(fileURLWithPath: "/bin/umount")).run(["-l", mountPoint.path])
            throw error
        }
        _ = try await Program(URL(fileURLWithPath: "/bin/umount")).run(["-l", mountPoint.path])
        try? FileManager.default.removeItem(at: mountPoint)
    }

    /// Fills the file system of `directory` with one file, leaving nothing free; returns the file.
    static func fill(_ directory: URL) throws -> URL {
        let filler = directory.appendingPathComponent("filler")
        let fd = open(filler.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        let block = [UInt8](repeating: 0x5a, count: 64 << 10)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        // The last partial block.
        while [UInt8](repeating: 0x5a, count: 512).withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        return filler
    }

    @Test func aFullDiskAnswers507EverywhereAndReadinessSaysSo() async throws {
        try await Self.withSmallDisk { disk in
            try await TestPlatform.with({
                $0.dataDirectory = disk.path
                $0.minFreeSpace = 1 << 20
                $0.uploadChunkSize = 64 << 10
            }) { platform in
                let (_, token, _) = try await platform.newUser()
                #expect(try await platform.send("GET", "/readyz").status == 200)
                // Prepared while there is room: an uploaded file, a planned upload with one part stored.
                let file = try await platform.upload(testContent(1000), token: token)
                let content = testContent(100_000)
                let plan = try await platform.plan(content.count, token: token)
                let first = try await platform.putPart(1, of: content, plan: plan)
                let filler = try Self.fill(disk)

                let ready = try await platform.send("GET", "/readyz")
                #expect(ready.status == 503, "\(ready.text)")
                #expect(ready.text.contains("min-free-space"))

                var answers: [String: Int] = [:]
                let second = try await platform.send("PUT", plan.parts[1].presignedURL, body: content[(64 << 10)...])
                answers["part PUT"] = second.status
                #expect(second.status == 507 && second.errorCode == "INSUFFICIENT_STORAGE", "\(second.text)")
                let calls: [(String, String, String, [String: Any])] = [
                    ("presign", "POST", APIPath.generatePresignedURLs, ["filesize": 100_000, "filetype": "m4a"]),
                    ("task", "POST", APIPath.transcriptions, ["file_url": file.fileID, "model": "asr-fast"]),
                    ("record", "POST", APIPath.records, ["file_id": file.fileID, "title": "full"]),
                ]
                for (name, method, path, body) in calls {
                    answers[name] = try await platform.send(method, path, token: token, json: body).status
                }
                answers["secret"] = try await platform.send("GET", APIPath.webhookSecret, token: token).status
                let complete = try await platform.complete(plan, etags: [1: first, 2: "\"0\""], token: token)
                answers["complete"] = complete.status
                // Nothing is a 500: a write that needed space is 507 with the code, the others succeeded.
                for (name, status) in answers {
                    #expect(status != 500, "\(name) answered 500")
                    #expect([200, 201, 400, 507].contains(status), "\(name) answered \(status)")
                }

                // Space again: ready, and the part can be stored.
                try FileManager.default.removeItem(at: filler)
                #expect(try await platform.send("GET", "/readyz").status == 200)
                let retried = try await platform.send("PUT", plan.parts[1].presignedURL, body: content[(64 << 10)...])
                #expect(retried.status == 200, "\(retried.text)")
            }
        }
    }

    @Test func crashLeftoversAreSweptAtStartAndCounted() async throws {
        try await TestPlatform.with({ configuration in
            // What a killed upload leaves: a 1 MiB `put_` file and a spooled part in blobs/.tmp.
            let temporary = URL(fileURLWithPath: configuration.resolvedBlobDirectory).appendingPathComponent(".tmp")
            try? FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            for name in ["put_00000000000000000001", "upload_leftover.part"] {
                let path = temporary.appendingPathComponent(name).path
                _ = FileManager.default.createFile(atPath: path, contents: Data(count: 1 << 20))
                try? FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: path)
            }
        }) { platform in
            let temporary = URL(fileURLWithPath: platform.configuration.resolvedBlobDirectory)
                .appendingPathComponent(".tmp")
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
            let metrics = try await platform.send("GET", "/metrics").text
            #expect(metrics.contains("earshot_blob_temporary_files_removed_total 2"), "\(metrics.suffix(400))")
        }
    }
}
