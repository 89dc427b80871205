import EarshotCore
import EarshotHTTP
import EarshotStore
import Foundation

/// The Earshot server: opens the stores named by the configuration, mounts the routes and serves HTTP.
///
/// ``run(onListening:)`` serves until its task is cancelled (the executable cancels it on SIGTERM/SIGINT), then
/// stops accepting, lets in-flight requests finish within ``ServerConfiguration/shutdownGrace`` and closes the
/// stores. Background maintenance (garbage collection of abandoned uploads, signing-key rotation), the job runner
/// (transcriptions, record notes, webhook deliveries, with the lease reaper) and the managed `llama-server` (started
/// on the first summary or translation) run as child tasks of `run` and stop with it (a running job is handed back
/// to the queue).
public struct Application: Sendable {
    public let configuration: ServerConfiguration
    let logger = Logger(label: "server")

    public init(configuration: ServerConfiguration) {
        self.configuration = configuration
    }

    /// Opens the stores, serves until cancelled, then shuts down gracefully.
    ///
    /// - Parameter onListening: called once with the bound port (useful with port 0).
    /// - Throws: store errors at open (bad path, schema too new, failed migration) and HTTP start errors
    ///   (port in use); each message says what to fix.
    public func run(onListening: @Sendable (Int) -> Void = { _ in }) async throws {
        let metadata = try await Self.openMetadataStore(configuration)
        do {
            let blobs = try await FileSystemBlobStore(root: URL(fileURLWithPath: configuration.resolvedBlobDirectory))
            let metrics = HTTPMetrics()
            let router = Router()
            let services = Services(configuration: configuration, metadata: metadata, blobs: blobs)
            HealthRoutes(
                metadata: metadata, blobs: blobs, metrics: metrics, process: ProcessMetrics(),
                extraMetrics: { [jobMetrics = services.jobMetrics] in jobMetrics.render() },
                storagePaths: [
                    configuration.resolvedBlobDirectory,
                    (configuration.resolvedDatabasePath as NSString).deletingLastPathComponent,
                ],
                minimumFreeSpace: configuration.minFreeSpace
            ).register(on: router)
            services.register(on: router)
            let server = HTTPServer(router: router, configuration: httpConfiguration, metrics: metrics)
            do {
                try await serve(server, services, onListening: onListening)
            } catch {
                await finishDecodes(services)
                throw error
            }
            await finishDecodes(services)
        } catch {
            await metadata.close()
            throw error
        }
        await metadata.close()
        logger.notice("earshot stopped")
    }

    /// Runs the HTTP server and the background services until the server stops (shutdown or cancellation).
    private func serve(
        _ server: HTTPServer, _ services: Services, onListening: @Sendable (Int) -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let port = try await server.waitUntilListening()
            services.links.setDerivedBase("http://\(urlHost):\(port)")
            group.addTask { await services.maintain(every: maintenanceInterval) }
            group.addTask { await services.runner.run() }
            if let languageModel = services.managedLanguageModel {
                // Idle until the first summary or translation asks for it; stopped with the server.
                group.addTask { try await languageModel.run() }
            }
            logger.notice(
                "earshot listening",
                metadata: [
                    "url": "http://\(urlHost):\(port)", "database": configuration.resolvedDatabasePath,
                    "blobs": configuration.resolvedBlobDirectory, "version": EarshotVersion.current,
                ])
            onListening(port)
            // The server returns when cancelled or shut down; maintenance then stops too.
            try await group.next()
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    /// Waits for decodes the workers cancelled to leave whisper.cpp, so the process never exits under them.
    private func finishDecodes(_ services: Services) async {
        if !(await services.engines.waitForDecodes(timeout: .seconds(30))) {
            logger.warning("a decode was still running 30 s after shutdown; exiting anyway")
        }
    }

    var httpConfiguration: HTTPServer.Configuration {
        HTTPServer.Configuration(
            host: configuration.host, port: configuration.port, threadPoolSize: configuration.threads,
            connectionTimeout: configuration.connectionTimeout, maxHeaderBytes: configuration.maxHeaderBytes,
            defaultBodyLimit: configuration.maxJSONBody, shutdownGracePeriod: configuration.shutdownGrace,
            errorMapper: ErrorTable.map)
    }

    /// How often abandoned uploads are collected and key ages checked: a quarter of `upload-max-age`, between
    /// 100 ms and 5 minutes.
    var maintenanceInterval: Duration {
        min(max(configuration.uploadMaxAge / 4, .milliseconds(100)), .seconds(300))
    }

    private var urlHost: String { configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host }

    static func openMetadataStore(_ configuration: ServerConfiguration) async throws -> SQLiteMetadataStore {
        let path = configuration.resolvedDatabasePath
        try FileManager.default.createDirectory(
            at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        return try await SQLiteMetadataStore(
            configuration: .init(location: .file(URL(fileURLWithPath: path)), schema: ServerSchema.components))
    }
}
