import EarshotCore
import EarshotHTTP
import EarshotStore
import Foundation

/// The Earshot server: opens the stores named by the configuration, mounts the routes and serves HTTP.
///
/// ``run(onListening:)`` serves until its task is cancelled (the executable cancels it on SIGTERM/SIGINT), then
/// stops accepting, lets in-flight requests finish within ``ServerConfiguration/shutdownGrace`` and closes the
/// stores.
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
        let metadata = try await openMetadataStore()
        do {
            let blobs = try await FileSystemBlobStore(root: URL(fileURLWithPath: configuration.resolvedBlobDirectory))
            let metrics = HTTPMetrics()
            let router = Router()
            HealthRoutes(metadata: metadata, blobs: blobs, metrics: metrics, process: ProcessMetrics())
                .register(on: router)
            let server = HTTPServer(router: router, configuration: httpConfiguration, metrics: metrics)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                let port = try await server.waitUntilListening()
                logger.notice(
                    "earshot listening",
                    metadata: [
                        "url": "http://\(urlHost):\(port)", "database": configuration.resolvedDatabasePath,
                        "blobs": configuration.resolvedBlobDirectory, "version": EarshotVersion.current,
                    ])
                onListening(port)
                try await group.waitForAll()
            }
        } catch {
            await metadata.close()
            throw error
        }
        await metadata.close()
        logger.notice("earshot stopped")
    }

    var httpConfiguration: HTTPServer.Configuration {
        HTTPServer.Configuration(
            host: configuration.host, port: configuration.port, threadPoolSize: configuration.threads,
            connectionTimeout: configuration.connectionTimeout, maxHeaderBytes: configuration.maxHeaderBytes,
            defaultBodyLimit: configuration.maxJSONBody, shutdownGracePeriod: configuration.shutdownGrace,
            errorMapper: ErrorTable.map)
    }

    private var urlHost: String { configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host }

    private func openMetadataStore() async throws -> SQLiteMetadataStore {
        let path = configuration.resolvedDatabasePath
        try FileManager.default.createDirectory(
            at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        return try await SQLiteMetadataStore(configuration: .init(location: .file(URL(fileURLWithPath: path))))
    }
}
