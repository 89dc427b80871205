import EarshotHTTP
import Foundation
import Testing

private struct Rename: Codable, Sendable {
    var name: String
    var count: Int
}

private struct DomainError: HTTPErrorConvertible {
    var httpError: HTTPError { HTTPError(.conflict, code: "BIND_OCCUPIED", message: "device is bound to another user") }
}

private struct Unmapped: Error {}
private struct MappedByTable: Error {}

private func makeRouter() -> Router {
    let router = Router()
    router.get("/healthz") { _, _ in .text("ok") }
    router.get("/records/search") { _, _ in .text("search") }
    router.get("/records/{id}") { request, context in
        let id = try context.parameters.require("id")
        return try .json(["id": id, "q": request.query["q"] ?? "", "route": context.route])
    }
    router.delete("/records/{id}") { _, _ in .empty() }
    router.post("/records/{id}/rename") { request, context in
        let rename = try request.decode(Rename.self)
        return try .json(["id": try context.parameters.require("id"), "name": rename.name], status: .created)
    }
    router.get("/static/*") { _, context in .text(context.parameters.catchAll ?? "") }
    let api = router.group("/developer/api")
    api.get("/v1/ping") { _, context in .text(context.route) }
    router.get("/fail/domain") { _, _ in throw DomainError() }
    router.get("/fail/unknown") { _, _ in throw Unmapped() }
    router.get("/fail/mapped") { _, _ in throw MappedByTable() }
    return router
}

private let configuration = HTTPServer.Configuration.test {
    $0.errorMapper = { error in
        error is MappedByTable ? HTTPError(.notFound, code: "RECORD_NOT_FOUND", message: "no such record") : nil
    }
}

@Suite(.timeLimit(.minutes(1)))
struct RoutingTests {
    @Test func unknownPathIs404JSONWithRequestID() async throws {
        try await withServer(makeRouter(), configuration: configuration) { port in
            let response = try await fetch(port, "/nope")
            #expect(response.status == 404)
            #expect(response.errorCode == "NOT_FOUND")
            #expect(response.header("Content-Type") == "application/json")
            let id = try #require(response.header("X-Request-Id"))
            #expect(id.hasPrefix("req_"))
            #expect(response.text.contains(id))
        }
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        try await withServer(makeRouter(), configuration: configuration) { port in
            let response = try await fetch(port, "/records/rec_1", method: "PUT", body: Data("{}".utf8))
            #expect(response.status == 405)
            #expect(response.errorCode == "METHOD_NOT_ALLOWED")
            #expect(response.header("Allow") == "DELETE, GET, HEAD")
            #expect(response.header("X-Request-Id") != nil)
        }
    }

    @Test func pathParametersAndPercentDecodedQuery() async throws {
        try await withServer(makeRouter(), configuration: configuration) { port in
            let response = try await fetch(port, "/records/rec_42?q=hello%20world%2Fx&other=1")
            #expect(response.status == 200)
            let object = try JSONDecoder().decode([String: String].self, from: response.body)
            #expect(object == ["id": "rec_42", "q": "hello world/x", "route": "/records/{id}"])
            // Exact segments beat parameters; trailing slashes are ignored.
            #expect(try await fetch(port, "/records/search/").text == "search")
            #expect(try await fetch(port, "/static/css/site.css").text == "css/site.css")
            #expect(try await fetch(port, "/developer/api/v1/ping").text == "/developer/api/v1/ping")
        }
    }

    @Test func malformedJSONIs400WithClearMessage() async throws {
        try await withServer(makeRouter(), configuration: configuration) { port in
            let bad = try await fetch(port, "/records/r1/rename", method: "POST", body: Data("{\"name\": ".utf8))
            #expect(bad.status == 400)
            #expect(bad.errorCode == "INVALID_ARGUMENT")
            #expect(bad.text.contains("not valid JSON"))
            let missing = try await fetch(
                port, "/records/r1/rename", method: "POST", body: Data("{\"name\":\"a\"}".utf8))
            #expect(missing.status == 400)
            #expect(missing.text.contains("missing field `count`"))
            let wrongType = try await fetch(
                port, "/records/r1/rename", method: "POST", body: Data("{\"name\":\"a\",\"count\":\"x\"}".utf8))
            #expect(wrongType.text.contains("field `count` must be an integer"))
            let good = try await fetch(
                port, "/records/r1/rename", method: "POST", body: Data("{\"name\":\"a/b\",\"count\":1}".utf8))
            #expect(good.status == 201)
            #expect(good.text == "{\"id\":\"r1\",\"name\":\"a/b\"}" || good.text == "{\"name\":\"a/b\",\"id\":\"r1\"}")
        }
    }

    @Test func unknownFieldsAre400NamingThemUnlessTheClientAsksToIgnoreThem() async throws {
        try await withServer(makeRouter(), configuration: configuration) { port in
            let body = Data(#"{"name":"a","count":1,"diarize":true}"#.utf8)
            let strict = try await fetch(port, "/records/r1/rename", method: "POST", body: body)
            #expect(strict.status == 400)
            #expect(strict.errorCode == "INVALID_ARGUMENT")
            #expect(strict.text.contains("unknown field `diarize` (fields here: count, name)"))
            let lenient = try await fetch(
                port, "/records/r1/rename", method: "POST", headers: ["Earshot-Unknown-Fields": "ignore"], body: body)
            #expect(lenient.status == 201)
        }
    }

    @Test func thrownErrorsMapToJSON() async throws {
        try await withServer(makeRouter(), configuration: configuration) { port in
            let domain = try await fetch(port, "/fail/domain")
            #expect(domain.status == 409)
            #expect(domain.errorCode == "BIND_OCCUPIED")
            let mapped = try await fetch(port, "/fail/mapped")
            #expect(mapped.status == 404)
            #expect(mapped.errorCode == "RECORD_NOT_FOUND")
            let unknown = try await fetch(port, "/fail/unknown")
            #expect(unknown.status == 500)
            #expect(unknown.errorCode == "INTERNAL")
            let id = try #require(unknown.header("X-Request-Id"))
            #expect(unknown.text.contains(id))
        }
    }

    @Test func saneClientRequestIDIsEchoedOthersReplaced() async throws {
        try await withServer(makeRouter(), configuration: configuration) { port in
            let kept = try await fetch(port, "/healthz", headers: ["X-Request-Id": "client-1.A_b"])
            #expect(kept.header("X-Request-Id") == "client-1.A_b")
            let replaced = try await fetch(port, "/healthz", headers: ["X-Request-Id": "bad id;<script>"])
            #expect(replaced.header("X-Request-Id")?.hasPrefix("req_") == true)
            let long = try await fetch(port, "/nope", headers: ["X-Request-Id": String(repeating: "a", count: 65)])
            #expect(long.header("X-Request-Id")?.hasPrefix("req_") == true)
        }
    }

    @Test func headFallsBackToGetWithoutBody() async throws {
        try await withServer(makeRouter(), configuration: configuration) { port in
            let response = try await raw(port, "HEAD", "/healthz")
            #expect(response.status == 200)
            #expect(response.headers["Content-Length"] == "2")
            #expect(response.body.isEmpty)
        }
    }

    @Test func routeListingShowsPatterns() {
        let routes = makeRouter().routes.map { "\($0.method) \($0.pattern)" }
        #expect(routes.contains("GET /records/{id}"))
        #expect(routes.contains("GET /developer/api/v1/ping"))
        #expect(routes.contains("GET /static/*"))
    }
}
