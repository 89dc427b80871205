import Testing

@testable import EarshotHTTP

/// The route table's index by first segment finds what a scan of every pattern in specificity order would: literal
/// routes, routes that begin with a parameter or `*`, and the root.
@Suite struct RouteTableTests {
    static func table(_ patterns: [String]) -> RouteTable {
        var table = RouteTable()
        for pattern in patterns {
            table.insert(
                Route(
                    method: .get, pattern: PathPattern(pattern), body: .buffered(),
                    handler: .async({ _, _ in Response() })))
        }
        return table.indexed()
    }

    @Test func theMostSpecificPatternAnswersWhateverItsFirstSegment() {
        let table = Self.table(["/a/{id}", "/{tenant}/x", "/a/y", "/", "/files/*", "/{tenant}/{id}/z", "/b"])
        func found(_ path: String) -> String? {
            if case .found(let route, _) = table.match(method: .get, path: path) { route.label } else { nil }
        }
        #expect(found("/a/y") == "/a/y")
        #expect(found("/a/x") == "/a/{id}")
        #expect(found("/q/x") == "/{tenant}/x")
        #expect(found("/a/k/z") == "/{tenant}/{id}/z")
        #expect(found("/files/one/two") == "/files/*")
        #expect(found("/") == "/")
        #expect(found("/b") == "/b")
        #expect(found("/c") == nil)
        #expect(found("/b/c/d/e") == nil)
        if case .methodNotAllowed(let methods) = table.match(method: .post, path: "/a/y") {
            #expect(methods.contains(.get))
        } else {
            Issue.record("POST /a/y should be 405")
        }
    }
}
