public import EarshotAPI
public import EarshotServer
public import EarshotTestSupport
public import Foundation
public import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a test server keeps its data: the embedded default (SQLite file and blob directory) or the scale-out
/// backends (`scripts/with-backends`: a new PostgreSQL database and a new S3 bucket for the test).
public enum ServerTestBackend: String, Sendable, CustomTestStringConvertible {
    case embedded, scaled

    /// The embedded backends always; the scale-out ones when `scripts/with-backends` runs them (`make test`).
    public static var available: [ServerTestBackend] {
        ScaleOutBackends.postgresURL == nil ? [.embedded] : [.embedded, .scaled]
    }

    public var testDescription: String { rawValue }
}

/// A real server in this process (the `Application`, with its SQLite file and blob directory in a temp dir) on
/// 127.0.0.1, port 0: the platform API tests and the SDK's tests talk to it over HTTP.
///
/// `with` starts it, creates nothing else, runs the body and stops it; `createPartner`, `partnerToken`,
/// `userToken` and `newUser` give a test its credentials.
public struct TestPlatform: Sendable {
    /// `http://127.0.0.1:PORT`.
    public let base: URL
    /// The data directory (database and blobs), removed after the body.
    public let directory: URL
    /// The configuration the application runs with.
    public let configuration: ServerConfiguration

    /// Starts the application with `configure` applied to a test configuration, runs `body`, stops it.
    ///
    /// - Parameter serialized: wait for a permit of ``gate`` (the default), so that a few platforms run at once, not
    ///   dozens on a 2-core machine.
    /// - Parameter dataDirectory: an existing data directory to serve (kept afterwards: a second `with` on it is a
    ///   restart); nil for a fresh one, removed after the body.
    public static func with(
        serialized: Bool = true, backend: ServerTestBackend = .embedded, dataDirectory: URL? = nil,
        _ configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (TestPlatform) async throws -> Void
    ) async throws {
        let database = backend == .scaled ? try ScaleOutBackends.newDatabase("platform") : nil
        let bucket =
            backend == .scaled
            ? ScaleOutBackends.s3.map { s3 in
                (
                    ObjectStoreLocation(endpoint: s3.endpoint, bucket: ScaleOutBackends.newBucketName("platform")),
                    ObjectStoreCredentials(accessKeyID: s3.accessKeyID, secretAccessKey: s3.secretAccessKey)
                )
            } : nil
        let configure: @Sendable (inout ServerConfiguration) -> Void = { configuration in
            if let database { configuration.database = database }
            if let (location, credentials) = bucket {
                configuration.blobStore = location
                configuration.blobStoreCredentials = credentials
            }
            configure(&configuration)
        }
        guard serialized else { return try await run(dataDirectory, configure, body) }
        try await gate.withLock("server") { try await run(dataDirectory, configure, body) }
    }

    /// What limits the platform servers running at once (and other tests that must not run beside them): two, so one
    /// suite's waits (polling a task, a webhook's retry, a browser) overlap another's work; `EARSHOT_TEST_PLATFORMS`
    /// sets another number (1 runs them one at a time, as when a test's failure may be interference).
    public static let gate = TaskGate(
        permits: ProcessInfo.processInfo.environment["EARSHOT_TEST_PLATFORMS"].flatMap { Int($0) } ?? 2)

    private static func run(
        _ existing: URL?,
        _ configure: @Sendable (inout ServerConfiguration) -> Void,
        _ body: @Sendable (TestPlatform) async throws -> Void
    ) async throws {
        let directory =
            existing ?? FileManager.default.temporaryDirectory.appendingPathComponent("earshot-platform-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if existing == nil { try? FileManager.default.removeItem(at: directory) } }
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = directory.path
        configuration.shutdownGrace = .seconds(2)
        configuration.uploadChunkSize = 64 << 10
        configuration.uploadMaxFileSize = 16 << 20
        // Parts of 64 KiB go through the server (S3's direct uploads need 5 MiB parts; DirectUploadTests turn it on).
        configuration.uploadDirect = false
        // Test receivers listen on loopback, which webhooks may not reach by default.
        configuration.webhookAllowNetworks = ["127.0.0.0/8", "::1"]
        configure(&configuration)
        let application = Application(configuration: configuration)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let serving = Task {
            defer { continuation.finish() }
            try await application.run { continuation.yield($0) }
        }
        defer { serving.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await serving.value  // the application ended before listening: its error
            throw CancellationError()
        }
        let platform = TestPlatform(
            base: URL(string: "http://127.0.0.1:\(port)")!, directory: directory, configuration: configuration)
        try await body(platform)
        serving.cancel()
        try await serving.value
    }

    // MARK: Partners and tokens

    public func createPartner(_ name: String = "Acme") async throws -> PartnerCredentials {
        try await PartnerAdministration(configuration: configuration).create(name: name)
    }

    public func partnerToken(_ credentials: PartnerCredentials) async throws -> String {
        let response = try await send(
            "POST", APIPath.partnerToken,
            json: ["client_id": credentials.clientID, "client_secret": credentials.clientSecret])
        try #require(response.status == 200, "\(response.text)")
        return try response.decode(TokenResponse.self).accessToken
    }

    public func userToken(partnerToken: String, userID: String, ttl: Int? = nil) async throws -> String {
        var body: [String: Any] = ["user_id": userID]
        if let ttl { body["ttl_seconds"] = ttl }
        let response = try await send("POST", APIPath.userToken, token: partnerToken, json: body)
        try #require(response.status == 200, "\(response.text)")
        return try response.decode(TokenResponse.self).accessToken
    }

    /// A fresh partner and a token for its user `userID`.
    public func newUser(_ userID: String = "user-1", partner name: String = "Acme") async throws -> (
        partner: PartnerCredentials, partnerToken: String, userToken: String
    ) {
        let partner = try await createPartner(name)
        let token = try await partnerToken(partner)
        return (partner, token, try await userToken(partnerToken: token, userID: userID))
    }

    // MARK: HTTP

    /// A response: status, body and headers (names lower-cased).
    public struct HTTPResult: Sendable {
        public let status: Int
        public let data: Data
        public let headers: [String: String]

        public init(status: Int, data: Data, headers: [String: String]) {
            self.status = status
            self.data = data
            self.headers = headers
        }

        public var text: String { String(decoding: data, as: UTF8.self) }
        public var object: [String: Any]? { try? JSONSerialization.jsonObject(with: data) as? [String: Any] }
        public var errorCode: String? { (object?["error"] as? [String: Any])?["code"] as? String }
        public var errorMessage: String { ((object?["error"] as? [String: Any])?["message"] as? String) ?? text }
        public func header(_ name: String) -> String? { headers[name.lowercased()] }
        public func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONDecoder().decode(T.self, from: data) }
    }

    /// The tests' HTTP client, without a cookie jar: tests send the cookies they mean. `URLSession.shared`'s jar (kept
    /// on disk by swift-corelibs-foundation, and blind to ports) replayed one server's session cookie to every later
    /// server on 127.0.0.1, across suites running in parallel.
    static let http: URLSession = {
        let configuration = URLSessionConfiguration.default
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return URLSession(configuration: configuration)
    }()

    /// `method` on `path` (relative to the base) or an absolute URL.
    public func send(
        _ method: String, _ pathOrURL: String, token: String? = nil, json: Any? = nil, body: Data? = nil,
        headers: [String: String] = [:]
    ) async throws -> HTTPResult {
        let url = pathOrURL.hasPrefix("http") ? URL(string: pathOrURL)! : URL(string: base.absoluteString + pathOrURL)!
        var request = URLRequest(url: url)
        request.httpMethod = method
        // A synchronous transcription waits its turn at the decoder: on a loaded 2-core machine that can take
        // minutes, longer than URLSession's default of 60 s. Suites have their own hang guards.
        request.timeoutInterval = 600
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        }
        if let body { request.httpBody = body }
        let (data, response) = try await Self.http.data(for: request)
        let http = response as! HTTPURLResponse
        let fields = Dictionary(
            http.allHeaderFields.map { ("\($0.key)".lowercased(), "\($0.value)") }, uniquingKeysWith: { a, _ in a })
        return HTTPResult(status: http.statusCode, data: data, headers: fields)
    }

    /// Plans an upload of `bytes`.
    public func plan(_ bytes: Int, filetype: String = "m4a", token: String) async throws -> UploadPlan {
        let response = try await send(
            "POST", APIPath.generatePresignedURLs, token: token, json: ["filesize": bytes, "filetype": filetype])
        try #require(response.status == 200, "\(response.text)")
        return try response.decode(UploadPlan.self)
    }

    /// PUTs part `number` of `content` to its presigned URL and returns the ETag.
    public func putPart(_ number: Int, of content: Data, plan: UploadPlan) async throws -> String {
        let url = plan.parts[number - 1].presignedURL
        let start = (number - 1) * plan.chunkSize
        let response = try await send("PUT", url, body: content[start..<min(start + plan.chunkSize, content.count)])
        try #require(response.status == 200, "\(response.text)")
        return try #require(response.header("ETag"))
    }

    public func complete(
        _ plan: UploadPlan, etags: [Int: String], filetype: String = "m4a", token: String
    ) async throws -> HTTPResult {
        try await send(
            "POST", APIPath.completeUpload, token: token,
            json: [
                "file_id": plan.fileID, "upload_id": plan.uploadID, "filetype": filetype,
                "part_list": etags.sorted { $0.key < $1.key }.map { ["part_number": $0.key, "etag": $0.value] },
            ])
    }

    /// Uploads `content` completely and returns the completion.
    public func upload(_ content: Data, token: String) async throws -> CompleteUploadResponse {
        let plan = try await plan(content.count, token: token)
        var etags: [Int: String] = [:]
        for part in plan.parts { etags[part.partNumber] = try await putPart(part.partNumber, of: content, plan: plan) }
        let done = try await complete(plan, etags: etags, token: token)
        try #require(done.status == 200, "\(done.text)")
        return try done.decode(CompleteUploadResponse.self)
    }
}

/// Deterministic pseudo-random bytes.
public func testContent(_ count: Int, seed: UInt64 = 42) -> Data {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    for index in bytes.indices {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
    return Data(bytes)
}
