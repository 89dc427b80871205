import EarshotAPI
import EarshotCore
import EarshotCrypto
import EarshotHTTP
import EarshotKit
import EarshotServerTestSupport
import EarshotStore
import Foundation
import Synchronization
import Testing

@testable import EarshotServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The in-process platform server (``TestPlatform``, without its one-at-a-time gate) behind a small forwarding proxy
/// that the SDK talks to. The proxy counts part `PUT`s and can fail, hold or corrupt them, which URLProtocol cannot
/// do reliably on Linux. The server's `public-url` is the proxy, so presigned URLs go through it too.
struct KitPlatform: Sendable {
    /// The proxy's base URL: give it to the SDK.
    let base: URL
    /// The server itself (no proxy).
    let server: TestPlatform
    let proxy: ProxyControl

    /// The server's own base URL (no proxy).
    var directBase: URL { server.base }
    var directory: URL { server.directory }
    var configuration: ServerConfiguration { server.configuration }

    static func with(
        chunkSize: Int = 5 << 20, _ body: @Sendable (KitPlatform) async throws -> Void
    ) async throws {
        let control = ProxyControl()
        let proxy = HTTPServer(
            router: control.router(),
            configuration: .init(port: 0, defaultBodyLimit: 64 << 20, shutdownGracePeriod: .milliseconds(200)))
        let proxying = Task { try await proxy.run() }
        defer { proxying.cancel() }
        let proxyPort = try await proxy.waitUntilListening()
        let base = URL(string: "http://127.0.0.1:\(proxyPort)")!

        try await TestPlatform.with(serialized: false) { configuration in
            configuration.uploadChunkSize = chunkSize
            configuration.uploadMaxFileSize = 64 << 20
            configuration.publicURL = base.absoluteString
        } _: { server in
            control.upstream.withLock { $0 = server.base.port ?? 0 }
            try await body(KitPlatform(base: base, server: server, proxy: control))
        }
        proxying.cancel()
        try? await proxying.value
    }

    // MARK: Partners and tokens

    func createPartner(_ name: String = "Acme") async throws -> PartnerCredentials {
        try await server.createPartner(name)
    }

    /// A user token issued through the SDK's partner helper.
    func userToken(_ userID: String = "user-1", partner: PartnerCredentials) async throws -> String {
        let tokens = PartnerTokenClientFactory.make(base: directBase, partner: partner)
        return try await tokens.userToken(for: userID).accessToken
    }

    /// A user token signed with the server's real key that expired an hour ago.
    func expiredUserToken(_ userID: String, partner: PartnerCredentials) async throws -> String {
        let store = try await SQLiteMetadataStore(
            configuration: .init(
                location: .file(URL(fileURLWithPath: configuration.resolvedDatabasePath)),
                schema: ServerSchema.components))
        let key: Keyring.Key
        do {
            key = try await Keyring(metadata: store, configuration: .init()).current(.token)
            await store.close()
        } catch {
            await store.close()
            throw error
        }
        let now = Int64(Date().timeIntervalSince1970)
        let claims = TokenClaims(
            iss: "earshot", sub: userID, partner: partner.clientID, kind: .user,
            scope: "files:write devices:bind records:read", iat: now - 7200, nbf: now - 7200, exp: now - 3600,
            jti: "tok_expired")
        return JWT.sign(
            header: .init(alg: "HS256", typ: "JWT", kid: key.kid), payload: Array(try JSONEncoder().encode(claims)),
            key: key.secret)
    }

    /// Downloads `url` and returns the SHA-256 hex of the bytes.
    func sha256(of url: String) async throws -> String {
        let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
        try #require((response as? HTTPURLResponse)?.statusCode == 200)
        var hasher = try StreamingHasher(.sha256)
        hasher.update(data)
        return hasher.finalize().hex
    }
}

enum PartnerTokenClientFactory {
    static func make(base: URL, partner: PartnerCredentials) -> PartnerTokenClient {
        PartnerTokenClient(baseURL: base, clientID: partner.clientID, clientSecret: partner.clientSecret)
    }
}

/// What the proxy does to part `PUT`s; shared between the test and the proxy's handlers.
final class ProxyControl: Sendable {
    struct State {
        /// Part PUTs seen (including failed and held ones).
        var puts = 0
        /// The next this-many part PUTs answer 503 without reaching the server.
        var failNextPuts = 0
        /// Part numbers whose PUTs are held (never forwarded) until cancelled.
        var held: Set<Int> = []
        /// Hold every part PUT.
        var holdAll = false
        /// Answer part PUTs with a wrong ETag.
        var corruptETags = false
        /// Flip a byte in the next this-many part bodies on their way to the server.
        var corruptBodies = 0
        /// Act as a store that ignores checksum headers: strip `x-amz-checksum-crc32` both ways.
        var dropChecksums = false
    }

    let state = Mutex(State())
    let upstream = Mutex(0)

    var puts: Int { state.withLock { $0.puts } }

    func router() -> Router {
        let router = Router()
        for method in [HTTPMethod.get, .post, .put, .delete] {
            router.on(method, "/*", body: .buffered(limit: 64 << 20)) { request, _ in
                try await self.forward(request)
            }
        }
        return router
    }

    private func forward(_ request: Request) async throws -> Response {
        let isPart = request.method == .put && request.path.contains("/upload/parts/")
        let dropChecksums = isPart && state.withLock { $0.dropChecksums }
        var damage = false
        if isPart {
            let part = Int(request.path.split(separator: "/").last ?? "") ?? 0
            let (fail, hold) = state.withLock { state -> (Bool, Bool) in
                state.puts += 1
                if state.failNextPuts > 0 {
                    state.failNextPuts -= 1
                    return (true, false)
                }
                return (false, state.holdAll || state.held.contains(part))
            }
            if fail { return .text("injected failure", status: 503) }
            damage = state.withLock { state in
                guard state.corruptBodies > 0 else { return false }
                state.corruptBodies -= 1
                return true
            }
            if hold {
                try await Task.sleep(for: .seconds(60))
            }
        }
        let port = upstream.withLock { $0 }
        var query = request.query.map { item in
            let allowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+"))
            return "\(item.name)=\(item.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? item.value)"
        }.joined(separator: "&")
        if !query.isEmpty { query = "?" + query }
        var upstreamRequest = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(request.path)\(query)")!)
        upstreamRequest.httpMethod = request.method.rawValue
        var dropped = ["host", "content-length", "connection"]
        if dropChecksums { dropped.append("x-amz-checksum-crc32") }
        for field in request.headers where !dropped.contains(field.name.lowercased()) {
            upstreamRequest.setValue(field.value, forHTTPHeaderField: field.name)
        }
        var body = request.bytes
        if damage, !body.isEmpty { body[body.count / 2] ^= 0x01 }
        let (data, response) =
            body.isEmpty
            ? try await URLSession.shared.data(for: upstreamRequest)
            : try await URLSession.shared.upload(for: upstreamRequest, from: Data(body))
        let http = response as! HTTPURLResponse
        var headers: HTTPHeaders = [:]
        let echoed = ["Content-Type", "ETag", "WWW-Authenticate", "Retry-After"]
        for name in echoed + (dropChecksums ? [] : ["x-amz-checksum-crc32"]) {
            if let value = http.value(forHTTPHeaderField: name) { headers[name] = value }
        }
        if isPart, state.withLock({ $0.corruptETags }), headers["ETag"] != nil {
            headers["ETag"] = "\"00000000000000000000000000000000\""
        }
        return Response(status: HTTPStatus(code: http.statusCode), headers: headers, body: .bytes(Array(data)))
    }
}

/// Deterministic pseudo-random bytes (``testContent(_:seed:)``) written to a temp file.
func makeTestFile(_ count: Int, seed: UInt64 = 42, in directory: URL, name: String = "memo.m4a") throws -> URL {
    let url = directory.appendingPathComponent(name)
    try testContent(count, seed: seed).write(to: url)
    return url
}

func sha256(ofFile url: URL) throws -> String {
    var hasher = try StreamingHasher(.sha256)
    hasher.update(try Data(contentsOf: url))
    return hasher.finalize().hex
}

/// Counts calls across tasks.
final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
