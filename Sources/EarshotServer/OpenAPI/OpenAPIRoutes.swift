import EarshotAPI
import EarshotHTTP
import Foundation

/// `GET /openapi.json`: ``OpenAPIDocument`` with `servers` set to this server's public URL and the API paths
/// under `api-prefix`.
struct OpenAPIRoutes: Sendable {
    let links: PublicLinks

    func register(on router: Router) {
        router.get(APIPath.openAPI) { _, _ in
            .bytes(try served(), contentType: "application/json")
        }
    }

    /// The document as served: the stored JSON with this deployment's server URL and prefix.
    func served() throws -> [UInt8] {
        guard var document = try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes)) as? [String: Any],
            let paths = document["paths"] as? [String: Any]
        else { throw PlatformError.invalidArgument("the embedded OpenAPI document is not a JSON object") }
        document["servers"] = [["url": links.url("", query: "").dropLast(links.prefix.count).description]]
        if !links.prefix.isEmpty {
            var served = Dictionary(
                uniqueKeysWithValues: paths.map {
                    ($0.key.hasPrefix("/open/") ? links.prefix + $0.key : $0.key, $0.value)
                })
            // The client-secret routes are also under the prefix, for the console's cookie (``ClientSecretRoutes``).
            for path in ClientSecretRoutes.paths {
                guard var item = paths[path] as? [String: Any] else { continue }
                for (method, operation) in item {
                    guard var operation = operation as? [String: Any], let id = operation["operationId"] as? String
                    else { continue }
                    operation["operationId"] = id + "UnderPrefix"
                    item[method] = operation
                }
                served[links.prefix + path] = item
            }
            document["paths"] = served
        }
        return Array(
            try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}
