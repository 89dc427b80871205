import EarshotAPI
import EarshotConsole
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The web console as served over HTTP: the page and its files, their types, the security headers and the
/// Content-Security-Policy, caching by ETag, the session cookies' flags and CSRF refusal (the browser itself is
/// driven in `EarshotConsoleTests/ConsoleBrowserTests`).
@Suite(.serialized) struct ConsoleTests {
    /// The files the page loads: its stylesheet and its module scripts (each imported by app.js or another module;
    /// capture.js is the live page's AudioWorklet).
    static let files = [
        "console.css", "app.js", "api.js", "dom.js", "auth.js", "library.js", "record.js", "wave.js", "upload.js", "quality.js",
        "devices.js", "admin.js", "languages.js", "live.js", "capture.js", "realtime.js", "conversation.js",
    ]

    @Test func thePageIsServedAtTheRootWithAStrictPolicyAndNoInlineCode() async throws {
        try await TestPlatform.with { platform in
            let page = try await platform.send("GET", "/")
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.header("Content-Security-Policy") == Console.contentSecurityPolicy)
            let policy = Console.contentSecurityPolicy
            #expect(policy.contains("script-src 'self';") && policy.contains("style-src 'self';"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval") && !policy.contains("http"))
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            #expect(page.header("X-Frame-Options") == "DENY")
            #expect(page.header("Referrer-Policy") == "no-referrer")
            #expect(page.header("Cache-Control") == "no-cache")
            // No inline script or style: every <script> has a src, no <style> element, no style= or on…= attribute.
            let html = page.text
            let scripts = html.components(separatedBy: "<script").dropFirst()
            #expect(scripts.count == 1)
            #expect(scripts.allSatisfy { $0.hasPrefix(" type=\"module\" src=\"/console/") })
            #expect(
                !html.contains("<style") && !html.contains(" style=")
                    && html.range(of: " on[a-z]+=", options: .regularExpression) == nil)
            #expect(html.contains("<meta name=\"earshot-api-prefix\" content=\"\">"))
        }
    }

    @Test func everyFileHasItsTypeAndTheFirstLoadIsSmall() async throws {
        try await TestPlatform.with { platform in
            var total = try await platform.send("GET", "/").data.count
            for file in Self.files {
                let response = try await platform.send("GET", "/console/" + file)
                #expect(response.status == 200, "\(file)")
                let type = file.hasSuffix(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8"
                #expect(response.header("Content-Type") == type, "\(file)")
                #expect(response.header("Content-Security-Policy") == Console.contentSecurityPolicy)
                #expect(response.header("X-Content-Type-Options") == "nosniff")
                total += response.data.count
                // Every module the scripts import is one of the served files.
                for imported in response.text.matches(of: /from '\.\/([a-z]+\.js)'/) {
                    #expect(Self.files.contains(String(imported.1)), "\(file) imports \(imported.1)")
                }
            }
            #expect(total < 200_000, "the first load transfers \(total) bytes")
            let missing = try await platform.send("GET", "/console/nothing.js")
            #expect(missing.status == 404)
            #expect(missing.header("Content-Security-Policy") == Console.contentSecurityPolicy)
        }
    }

    @Test func filesAreRevalidatedByETag() async throws {
        try await TestPlatform.with { platform in
            let first = try await platform.send("GET", "/console/app.js")
            let etag = try #require(first.header("ETag"))
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 34)
            let session = URLSession(configuration: .ephemeral)
            var request = URLRequest(url: platform.base.appendingPathComponent("console/app.js"))
            request.cachePolicy = .reloadIgnoringLocalCacheData
            request.setValue(etag, forHTTPHeaderField: "If-None-Match")
            let (body, response) = try await session.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 304)
            #expect(body.isEmpty)
            request.setValue("\"0123\"", forHTTPHeaderField: "If-None-Match")
            let (again, changed) = try await session.data(for: request)
            #expect((changed as? HTTPURLResponse)?.statusCode == 200)
            #expect(again == first.data)
        }
    }

    @Test func thePageNamesTheAPIPrefix() async throws {
        try await TestPlatform.with({ $0.apiPrefix = "/developer/api" }) { platform in
            let page = try await platform.send("GET", "/")
            #expect(page.text.contains("<meta name=\"earshot-api-prefix\" content=\"/developer/api\">"))
        }
    }

    @Test func consoleCookiesAreHttpOnlyStrictAndSecureBehindTLSAndChangesNeedCSRF() async throws {
        try await TestPlatform.with({ $0.publicURL = "https://notes.example.com" }) { platform in
            _ = try await AccountsTests.account(platform, "ada@example.com")
            let (response, signedIn) = try await AccountsTests.signIn(platform, "ada@example.com", cookie: true)
            let csrf = try #require(signedIn?.csrfToken)
            let cookies = try #require(response.header("Set-Cookie"))
            let session = try #require(cookies.components(separatedBy: ", earshot_").first)
            #expect(session.hasPrefix("earshot_session=est_"))
            for flag in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/"] {
                #expect(session.contains(flag), "\(flag)")
            }
            let readable = "earshot_" + (cookies.components(separatedBy: ", earshot_").last ?? "")
            #expect(readable.hasPrefix("earshot_csrf=\(csrf);"))
            #expect(!readable.contains("HttpOnly") && readable.contains("Secure") && readable.contains("Path=/;"))
            let token = String(session.dropFirst("earshot_session=".count).prefix { $0 != ";" })
            let cookie = ["Cookie": "earshot_session=\(token)"]
            // What the console does: a change without the header, or with a wrong one, is refused and changes nothing.
            let refused = try await platform.send(
                "PATCH", APIPath.accountMe, json: ["nickname": "Eve"], headers: cookie)
            #expect(refused.status == 403)
            #expect(refused.errorMessage.contains("X-CSRF-Token"))
            let record = try await platform.send(
                "POST", APIPath.records, json: ["file_id": "file_x"],
                headers: cookie.merging(["X-CSRF-Token": "x"]) { $1 })
            #expect(record.status == 403)
            let me = try await platform.send("GET", APIPath.accountMe, headers: cookie)
            #expect(me.object?["nickname"] as? String != "Eve")
            let accepted = try await platform.send(
                "PATCH", APIPath.accountMe, json: ["nickname": "Ada"],
                headers: cookie.merging(["X-CSRF-Token": csrf]) { $1 })
            #expect(accepted.status == 200)
        }
    }
}
