import EarshotConsole
import EarshotCore
import EarshotHTTP
import EarshotPostgres
import EarshotS3
import EarshotSpeech
public import EarshotStore
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

    /// How a graceful stop ended.
    public enum Stop: Sendable {
        /// Every decode left whisper.cpp: the process may exit normally.
        case clean
        /// A cancelled decode was still inside whisper.cpp 30 s after the shutdown (a very loaded machine; whisper.cpp
        /// looks at its abort flag only between passes). Its job goes back to the queue when its lease expires. The
        /// process must end with `_exit`: `exit` would run whisper.cpp's and ggml's static destructors under the
        /// running decode thread and crash (SIGSEGV).
        case decodesStillRunning
    }

    /// Opens the stores, serves until cancelled, then shuts down gracefully.
    ///
    /// - Parameter onListening: called once with the bound port (useful with port 0).
    /// - Returns: whether a decode was still running when it returned (see ``Stop``).
    /// - Throws: store errors at open (bad path, schema too new, failed migration) and HTTP start errors
    ///   (port in use); each message says what to fix.
    @discardableResult
    public func run(onListening: @Sendable (Int) -> Void = { _ in }) async throws -> Stop {
        let metadata = try await Self.openMetadataStore(configuration)
        do {
            let blobs = try await Self.openBlobStore(configuration)
            let router = Router()
            let services = Services(configuration: configuration, metadata: metadata, blobs: blobs)
            services.health.register(on: router)
            if configuration.role.servesAPI {
                services.register(on: router)
                // The web console's page and files: not part of the API, so outside api-prefix and the OpenAPI
                // document.
                Console(apiPrefix: configuration.apiPrefix).register(on: router)
            }
            let server = HTTPServer(router: router, configuration: httpConfiguration, metrics: services.httpMetrics)
            let stop: Stop
            do {
                try await serve(server, services, onListening: onListening)
            } catch {
                _ = await finishDecodes(services)
                throw error
            }
            stop = await finishDecodes(services)
            await metadata.close()
            logger.notice("earshot stopped")
            return stop
        } catch {
            await metadata.close()
            throw error
        }
    }

    /// Runs the HTTP server and the background services until the server stops (shutdown or cancellation).
    private func serve(
        _ server: HTTPServer, _ services: Services, onListening: @Sendable (Int) -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let port = try await server.waitUntilListening()
            services.links.setDerivedBase("http://\(urlHost):\(port)")
            if configuration.role.servesAPI {
                group.addTask { await services.maintain(every: maintenanceInterval) }
                group.addTask { await services.uploads.deleteRetiredParts() }
            }
            if configuration.role.runsJobs { group.addTask { await services.runner.run() } }
            if let languageModel = services.managedLanguageModel {
                // Idle until the first summary or translation asks for it; stopped with the server.
                group.addTask { try await languageModel.run() }
            }
            logger.notice(
                "earshot listening",
                metadata: [
                    "url": "http://\(urlHost):\(port)", "role": configuration.role.rawValue,
                    "database": configuration.databaseDescription,
                    "blobs": configuration.blobsDescription, "version": EarshotVersion.current,
                ])
            if configuration.role.servesAPI, (try? await services.accounts.hasOwner()) == false {
                logger.notice(
                    "this instance has no owner yet: make one to see the console's Admin page",
                    metadata: ["how": "earshot accounts grant-owner ACCOUNT_ID (earshot accounts list shows the ids)"])
            }
            if !SpeechModel.libraryMasksAttentionPadding {
                logger.warning(
                    "this whisper.cpp lacks Earshot's attention-padding patch: speech models load without flash "
                        + "attention (slower, about 80 MB more per model)",
                    metadata: ["how": "make setup builds the patched library (docs/decisions/0017)"])
            }
            onListening(port)
            // The server returns when cancelled or shut down; maintenance then stops too.
            try await group.next()
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    /// Waits for decodes the workers cancelled to leave whisper.cpp, so the process never exits under them.
    private func finishDecodes(_ services: Services) async -> Stop {
        if await services.engines.waitForDecodes(timeout: .seconds(30)) { return .clean }
        logger.warning("a decode was still running 30 s after shutdown; exiting without waiting for it")
        return .decodesStillRunning
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

    /// Opens the blob store: the S3 bucket `blob-store` names (created when missing; credentials from
    /// `blob-store-credentials-file` or the environment), else the blob directory.
    ///
    /// - Throws: `ConfigurationError` without credentials; ``StoreError`` `.unavailable` when the object store cannot
    ///   be reached or refuses the credentials.
    public static func openBlobStore(_ configuration: ServerConfiguration) async throws -> any BlobStore {
        guard let location = configuration.blobStore else {
            return try await FileSystemBlobStore(root: URL(fileURLWithPath: configuration.resolvedBlobDirectory))
        }
        let environment = ProcessInfo.processInfo.environment
        guard
            let credentials = configuration.blobStoreCredentials
                ?? environment["AWS_ACCESS_KEY_ID"].flatMap({ key in
                    environment["AWS_SECRET_ACCESS_KEY"].map {
                        ObjectStoreCredentials(accessKeyID: key, secretAccessKey: $0)
                    }
                })
        else {
            throw ConfigurationError(issues: [
                ConfigurationIssue(
                    setting: "blob-store", source: location.bucket,
                    message: "needs credentials: blob-store-credentials-file, or AWS_ACCESS_KEY_ID and "
                        + "AWS_SECRET_ACCESS_KEY in the environment")
            ])
        }
        var settings = S3BlobStore.Configuration(
            endpoint: location.endpoint, bucket: location.bucket,
            credentials: .init(accessKeyID: credentials.accessKeyID, secretAccessKey: credentials.secretAccessKey))
        settings.region = location.region
        // Uploads are spooled next to the data directory before they go to the bucket.
        let spool = URL(fileURLWithPath: configuration.resolvedBlobDirectory).appendingPathComponent(".tmp")
        try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
        settings.temporaryDirectory = spool
        let store = S3BlobStore(settings)
        try await store.createBucketIfMissing()
        return store
    }

    /// Opens the metadata store `database` names (SQLite file or PostgreSQL) with the server's schema; with
    /// `migrate` false a PostgreSQL database with pending migrations is refused (`earshot migrate` applies them).
    public static func openMetadataStore(
        _ configuration: ServerConfiguration, migrate: Bool = true
    ) async throws -> any MetadataStore {
        switch configuration.metadataBackend {
        case .sqlite(let path):
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            return try await SQLiteMetadataStore(
                configuration: .init(location: .file(URL(fileURLWithPath: path)), schema: ServerSchema.components))
        case .postgresql(let url):
            var settings = PostgresMetadataStore.Configuration(
                url: url, password: configuration.databasePassword, schema: ServerSchema.components)
            settings.migrate = migrate
            // API threads and job workers each hold at most one connection at a time.
            settings.maximumConnections = max(configuration.threads + configuration.workers + 6, 8)
            return try await PostgresMetadataStore(configuration: settings)
        }
    }
}
