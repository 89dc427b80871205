import EarshotCore
import EarshotHTTP
import EarshotStore
import Foundation

/// `GET /healthz` (liveness), `GET /readyz` (the stores answer and their disks have `min-free-space` free) and
/// `GET /metrics` (Prometheus text).
struct HealthRoutes: Sendable {
    let metadata: any MetadataStore
    let blobs: any BlobStore
    let metrics: HTTPMetrics
    let process: ProcessMetrics
    /// More Prometheus text appended to `/metrics` (task queue and webhook metrics).
    var extraMetrics: @Sendable () -> String = { "" }
    /// Directories whose file systems must keep ``minimumFreeSpace`` bytes free for `/readyz` (the blobs and the
    /// database).
    var storagePaths: [String] = []
    /// `min-free-space`: below it, `/readyz` answers 503 (uploads would soon fail with 507).
    var minimumFreeSpace = 0

    /// The `/healthz` answer, built once: liveness is asked for constantly (load balancers, benchmarks).
    static let liveness = Response(
        status: .ok, headers: ["Content-Type": "application/json"], body: .bytes(Array(#"{"status":"ok"}"#.utf8)))

    /// Temporary files swept (crash leftovers), when the blob store is the file system.
    func storageMetrics() -> String {
        guard let files = blobs as? FileSystemBlobStore else { return "" }
        return "# HELP earshot_blob_temporary_files_removed_total Temporary blob files no process owned (left by a "
            + "crash or a kill), removed since start.\n# TYPE earshot_blob_temporary_files_removed_total counter\n"
            + "earshot_blob_temporary_files_removed_total \(files.temporaryFilesRemoved)\n"
    }

    struct Check: Sendable {
        let name: String
        let error: String?
    }

    func register(on router: some RouteBuilder) {
        // Cheap and non-blocking: these run inline on the HTTP worker thread (see docs/http.md).
        router.inline.get("/healthz") { _, _ in Self.liveness }
        router.inline.get("/metrics") { _, _ in
            .text(
                metrics.render() + process.render() + storageMetrics() + extraMetrics(),
                contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        router.get("/readyz") { _, context in
            let checks = await checks()
            let ready = checks.allSatisfy { $0.error == nil }
            if !ready {
                context.logger.warning(
                    "not ready",
                    metadata: [
                        "metadata": checks[0].error ?? "ok", "blobs": checks[1].error ?? "ok",
                        "disk": checks[2].error ?? "ok",
                    ])
            }
            return try Self.readiness(ready: ready, checks: checks)
        }
    }

    /// The readiness checks, in order: `metadata` and `blobs` (each store answers), `disk` (free space).
    func checks() async -> [Check] {
        async let metadataCheck = check("metadata") { try await metadata.ping() }
        async let blobCheck = check("blobs") { try await blobs.ping() }
        return [await metadataCheck, await blobCheck, diskCheck()]
    }

    /// `{"status":"ready","checks":{"metadata":{"ok":true},"blobs":{"ok":false,"error":"…"}}}`, keys in this
    /// order (JSONEncoder's keyed containers are unordered).
    static func readiness(ready: Bool, checks: [Check]) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        var body = #"{"status":"# + (ready ? #""ready""# : #""unavailable""#) + #","checks":{"#
        for (index, check) in checks.enumerated() {
            if index > 0 { body += "," }
            body += String(decoding: try encoder.encode(check.name), as: UTF8.self) + #":{"ok":"#
            if let error = check.error {
                body += #"false,"error":"# + String(decoding: try encoder.encode(error), as: UTF8.self) + "}"
            } else {
                body += "true}"
            }
        }
        body += "}}"
        return Response(
            status: ready ? .ok : .serviceUnavailable, headers: ["Content-Type": "application/json"],
            body: .bytes(Array(body.utf8)))
    }

    /// `disk`: every storage path's file system has at least ``minimumFreeSpace`` bytes free.
    func diskCheck() -> Check {
        for path in storagePaths {
            var info = statvfs()
            guard statvfs(path, &info) == 0 else { continue }
            let free = Int(info.f_bavail) * Int(info.f_frsize)
            if free < minimumFreeSpace {
                return Check(
                    name: "disk",
                    error: "\(free / 1_048_576) MiB free under \(path), below min-free-space "
                        + "(\(minimumFreeSpace / 1_048_576) MiB)")
            }
        }
        return Check(name: "disk", error: nil)
    }

    private func check(_ name: String, _ probe: () async throws -> Void) async -> Check {
        do {
            try await probe()
            return Check(name: name, error: nil)
        } catch {
            return Check(name: name, error: "\(error)")
        }
    }
}
