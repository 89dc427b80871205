import EarshotHTTP
import EarshotStore
import Foundation
import Testing

@testable import EarshotServer

/// The OpenAPI document: `docs/openapi.json` is what the server embeds and serves, and it documents exactly the
/// routes the server registers.
@Suite struct OpenAPITests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let docsCopy = repositoryRoot.appendingPathComponent("docs/openapi.json")

    @Test func theEmbeddedResourceIsDocsOpenAPIJSON() throws {
        // One file: the target's resource is a symlink to docs/openapi.json, not a second copy that could drift.
        let resource = Self.repositoryRoot.appendingPathComponent("Sources/EarshotServer/OpenAPI/openapi.json")
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: resource.path)
        #expect(target == "../../../docs/openapi.json")
        #expect(OpenAPIDocument.bytes == Array(try Data(contentsOf: Self.docsCopy)))
    }

    @Test(arguments: ["", "/developer/api"])
    func everyRegisteredRouteIsDocumentedAndViceVersa(prefix: String) async throws {
        try await TestPlatform.gate.withLock("server") { try await checkRoutes(prefix: prefix) }
    }

    func checkRoutes(prefix: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-openapi-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration()
        configuration.dataDirectory = directory.path
        configuration.apiPrefix = prefix
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try await Application.openMetadataStore(configuration)
        let blobs = try await FileSystemBlobStore(root: directory.appendingPathComponent("blobs"))
        let router = Router()
        HealthRoutes(metadata: store, blobs: blobs, metrics: HTTPMetrics(), process: ProcessMetrics()).register(
            on: router)
        let services = Services(configuration: configuration, metadata: store, blobs: blobs)
        services.register(on: router)
        await store.close()

        let served = try JSONSerialization.jsonObject(with: Data(OpenAPIRoutes(links: services.links).served()))
        let paths = try #require((served as? [String: Any])?["paths"] as? [String: [String: Any]])
        let methods = ["get", "put", "post", "delete", "patch", "head", "options"]
        let documented = Set(
            paths.flatMap { path, item in
                item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" }
            })
        let registered = Set(router.routes.map { "\($0.method.rawValue) \($0.pattern)" })
        #expect(registered.subtracting(documented).isEmpty, "registered but not documented")
        #expect(documented.subtracting(registered).isEmpty, "documented but not registered")
        #expect(registered.contains("POST \(prefix)/open/partner/files/upload/generate-presigned-urls"))
        // Every operation has a unique operationId and declared responses.
        let operations = paths.values.flatMap { item in methods.compactMap { item[$0] as? [String: Any] } }
        let ids = operations.compactMap { $0["operationId"] as? String }
        #expect(ids.count == operations.count)
        #expect(Set(ids).count == ids.count)
        #expect(operations.allSatisfy { ($0["responses"] as? [String: Any])?.isEmpty == false })
        // Every body is held to a limit (max-json-body, or the route's own), so every operation that takes one
        // documents the 413 it answers past it.
        let bodyWithout413 = paths.flatMap { path, item in
            methods.compactMap { method -> String? in
                guard let operation = item[method] as? [String: Any], operation["requestBody"] != nil,
                    (operation["responses"] as? [String: Any])?["413"] == nil
                else { return nil }
                return "\(method.uppercased()) \(path)"
            }
        }
        #expect(bodyWithout413.isEmpty, "operations with a body but no 413: \(bodyWithout413.sorted())")
    }

    @Test func theServedDocumentIsDocsOpenAPIJSONWithThisServer() async throws {
        try await TestPlatform.with { platform in
            let response = try await platform.send("GET", "/openapi.json")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            let servers = response.object?["servers"] as? [[String: String]]
            #expect(servers == [["url": platform.base.absoluteString]])
            #expect(response.object?["openapi"] as? String == "3.1.0")
            // Everything but `servers` is docs/openapi.json as it is in the repository.
            var stored = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: Self.docsCopy)) as? [String: Any])
            stored["servers"] = response.object?["servers"]
            let served = try #require(response.object)
            #expect(try Self.canonical(served) == Self.canonical(stored), "GET /openapi.json differs from docs/")
        }
    }

    /// JSON with sorted keys, so two parsed documents compare byte for byte.
    static func canonical(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
