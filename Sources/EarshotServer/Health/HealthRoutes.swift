import EarshotCore
import EarshotHTTP
import EarshotStore
import Foundation

/// `GET /healthz` (liveness), `GET /readyz` (the stores answer) and `GET /metrics` (Prometheus text).
struct HealthRoutes {
    let metadata: any MetadataStore
    let blobs: any BlobStore
    let metrics: HTTPMetrics
    let process: ProcessMetrics

    struct Liveness: Encodable {
        let status: String
    }

    struct Readiness: Encodable {
        struct Check: Encodable {
            let ok: Bool
            let error: String?
        }

        let status: String
        let checks: [String: Check]
    }

    func register(on router: some RouteBuilder) {
        router.get("/healthz") { _, _ in
            try .json(Liveness(status: "ok"))
        }
        router.get("/readyz") { _, context in
            async let metadataCheck = check { try await metadata.ping() }
            async let blobCheck = check { try await blobs.ping() }
            let checks = ["metadata": await metadataCheck, "blobs": await blobCheck]
            let ready = checks.values.allSatisfy(\.ok)
            if !ready {
                context.logger.warning(
                    "not ready",
                    metadata: ["metadata": checks["metadata"]?.error ?? "ok", "blobs": checks["blobs"]?.error ?? "ok"])
            }
            return try .json(
                Readiness(status: ready ? "ready" : "unavailable", checks: checks),
                status: ready ? .ok : .serviceUnavailable)
        }
        router.get("/metrics") { _, _ in
            .text(metrics.render() + process.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }

    private func check(_ probe: () async throws -> Void) async -> Readiness.Check {
        do {
            try await probe()
            return .init(ok: true, error: nil)
        } catch {
            return .init(ok: false, error: "\(error)")
        }
    }
}
