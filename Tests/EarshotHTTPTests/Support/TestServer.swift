import EarshotCore
import EarshotHTTP
import EarshotTestSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPServer.Configuration {
    /// Ephemeral port on loopback, short timeouts.
    static func test(_ configure: (inout HTTPServer.Configuration) -> Void = { _ in }) -> HTTPServer.Configuration {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, threadPoolSize: 2)
        configuration.connectionTimeout = .seconds(10)
        configuration.shutdownGracePeriod = .seconds(5)
        configure(&configuration)
        return configuration
    }
}

/// Starts a real server on 127.0.0.1:0, runs `body` with its port, then cancels `run()` and waits for it to stop.
func withServer<T: Sendable>(
    _ router: Router, configuration: HTTPServer.Configuration = .test(), metrics: HTTPMetrics = HTTPMetrics(),
    _ body: @Sendable (Int) async throws -> T
) async throws -> T {
    _ = TestLog.path
    let server = HTTPServer(router: router, configuration: configuration, metrics: metrics)
    let running = Task { try await server.run() }
    let port: Int
    do {
        port = try await server.waitUntilListening()
    } catch {
        running.cancel()
        throw error
    }
    do {
        let result = try await body(port)
        running.cancel()
        try await running.value
        return result
    } catch {
        running.cancel()
        _ = try? await running.value
        throw error
    }
}

/// A URLSession allowing many parallel connections, without caches or cookies.
let testSession: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 256
    configuration.timeoutIntervalForRequest = 30
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    return URLSession(configuration: configuration)
}()

struct FetchResult: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The `error.code` of a JSON error body.
    var errorCode: String? {
        let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        return (object?["error"] as? [String: Any])?["code"] as? String
    }
}

/// One request through URLSession.
func fetch(
    _ port: Int, _ path: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
) async throws -> FetchResult {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    let (data, response) = try await testSession.data(for: request)
    let http = response as! HTTPURLResponse
    var fields: [String: String] = [:]
    for (key, value) in http.allHeaderFields {
        fields["\(key)"] = "\(value)"
    }
    return FetchResult(status: http.statusCode, headers: fields, body: data)
}
