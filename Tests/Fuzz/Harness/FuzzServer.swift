import EarshotHTTP
import Foundation
import Synchronization

/// The live server of the `http` target, started once per process on 127.0.0.1:0 with routes of every body mode:
/// buffered JSON, a file body, a streamed body, path parameters and a catch-all.
final class FuzzServer: Sendable {
    static let shared = FuzzServer()

    /// A scratch file for targets that need a path (one per process).
    static let scratchFile = URL(fileURLWithPath: NSTemporaryDirectory())
        .appendingPathComponent("earshot-fuzz-\(getpid()).bin")

    let port: Int

    private init() {
        let spool = NSTemporaryDirectory() + "earshot-fuzz-spool-\(getpid())"
        try? FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        let router = Router()
        router.post("/json/{id}") { request, context in
            struct Body: Codable { var name: String; var count: Int? }
            let body = try request.decode(Body.self)
            return try .json(["id": try context.parameters.require("id"), "name": body.name])
        }
        router.put("/file/{id}/{n}", body: .file(limit: 1 << 20, directory: spool)) { request, _ in
            guard case .file(let file) = request.body else { return .empty(status: .badRequest) }
            return .text("\(file.byteCount)")
        }
        router.on(
            .put, "/checked/{id}", body: .file(limit: 1 << 20, directory: spool),
            check: { request, _ in
                if request.query["signature"] != "ok" { throw HTTPError.forbidden("unsigned") }
            }
        ) { _, _ in .empty() }
        router.post("/stream", body: .stream(limit: 1 << 20)) { request, _ in
            guard case .stream(let stream) = request.body else { return .empty(status: .badRequest) }
            var total = 0
            for try await chunk in stream { total += chunk.count }
            return .text("\(total)")
        }
        router.get("/static/*") { _, context in .text(context.parameters.catchAll ?? "") }
        router.inline.get("/healthz") { _, _ in .text("ok") }
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, threadPoolSize: 2)
        configuration.connectionTimeout = .seconds(2)
        let server = HTTPServer(router: router, configuration: configuration)
        let ready = Mutex<Int?>(nil)
        let started = DispatchSemaphore(value: 0)
        // Serves until the process exits. The caller (libFuzzer's thread, not the Swift pool) may block.
        Task.detached { try? await server.run() }
        Task.detached {
            let port = try? await server.waitUntilListening()
            ready.withLock { $0 = port }
            started.signal()
        }
        started.wait()
        guard let port = ready.withLock({ $0 }) else { fatalError("the fuzz server did not start") }
        self.port = port
    }
}
