public import EarshotHTTP
import Foundation

/// The web console: plain HTML, CSS and JavaScript modules embedded in the binary, served at `/` (the page) and
/// `/console/<file>` (its scripts and style). The pages talk to the platform API with the account's session cookie
/// and repeat the CSRF cookie in `X-CSRF-Token` (docs/accounts.md); nothing is loaded from another origin.
///
/// Every response carries a strict Content-Security-Policy (scripts and styles only from this origin, no inline
/// code), `nosniff`, no framing and no referrer; assets are validated with a strong `ETag` (`304` on
/// `If-None-Match`) and revalidated on every load (`Cache-Control: no-cache`), so an upgraded server is never
/// shown with stale scripts.
public struct Console: Sendable {
    /// The policy on every console response.
    public static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; "
        + "connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    let assets: [String: ConsoleAsset]

    /// - Parameter apiPrefix: where the platform API is mounted (`api-prefix`, "" for the root); written into the
    ///   page so its scripts call `<prefix>/open/…`.
    public init(apiPrefix: String) {
        var assets = ConsoleAsset.all
        if let page = assets["index.html"] {
            let html = String(decoding: page.bytes, as: UTF8.self)
                .replacingOccurrences(of: "{{api-prefix}}", with: Self.attributeEscaped(apiPrefix))
            assets["index.html"] = ConsoleAsset(name: page.name, contentType: page.contentType, bytes: Array(html.utf8))
        }
        self.assets = assets
    }

    /// Registers `GET /` and `GET /console/*` (`HEAD` falls back to them).
    public func register(on router: some RouteBuilder) {
        let page: Handler = { [assets] request, _ in Self.serve(assets["index.html"], request) }
        let file: Handler = { [assets] request, context in
            Self.serve(assets[context.parameters.catchAll ?? ""], request)
        }
        router.get("/", use: page)
        router.get("/console/*", use: file)
    }

    /// The response for `asset` (404 when there is none), `304` when the client already holds these bytes.
    static func serve(_ asset: ConsoleAsset?, _ request: Request) -> Response {
        var headers = securityHeaders
        guard let asset else {
            headers["Content-Type"] = "text/plain; charset=utf-8"
            return Response(status: .notFound, headers: headers, body: .bytes(Array("no such console file\n".utf8)))
        }
        headers["ETag"] = asset.etag
        headers["Cache-Control"] = "no-cache"
        if let held = request.headers["If-None-Match"],
            held.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag })
        {
            return Response(status: .notModified, headers: headers, body: .empty)
        }
        headers["Content-Type"] = asset.contentType
        return Response(status: .ok, headers: headers, body: .bytes(asset.bytes))
    }

    /// Headers on every console response.
    static var securityHeaders: HTTPHeaders {
        [
            "Content-Security-Policy": contentSecurityPolicy,
            "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY",
            "Referrer-Policy": "no-referrer",
            "Cross-Origin-Opener-Policy": "same-origin",
            "Cross-Origin-Resource-Policy": "same-origin",
            "Permissions-Policy": "camera=(), geolocation=(), microphone=(self)",
        ]
    }

    private static func attributeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
