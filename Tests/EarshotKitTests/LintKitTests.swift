import EarshotTestSupport
import Foundation
import Testing

/// `scripts/lint-kit`, the Apple-platform check of EarshotKit's source, on the real tree and on planted mistakes.
@Suite struct LintKitTests {
    static let repository = TestEnvironment.repository

    func lint(_ root: URL) throws -> ProcessResult {
        try Program(Self.repository.appendingPathComponent("scripts/lint-kit")).runBlocking(
            [root.path], timeout: .seconds(120))
    }

    @Test func theRepositoryIsClean() throws {
        let result = try lint(Self.repository)
        #expect(result.status == 0, "\(result)")
    }

    @Test func linuxOnlyAPIAndExtraDependenciesAreRejected() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lint-kit-\(UUID())")
        defer { try? FileManager.default.removeItem(at: root) }
        for module in ["EarshotKit", "EarshotAPI"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("Sources/\(module)"), withIntermediateDirectories: true)
        }
        try Data(
            """
            targets += [.target(name: "EarshotAPI", swiftSettings: s)]
            targets += [.target(name: "EarshotKit", dependencies: ["EarshotAPI", "EarshotCore"], swiftSettings: s)]
            """.utf8
        ).write(to: root.appendingPathComponent("Package.swift"))
        try Data(
            """
            import Foundation
            import FoundationNetworking
            import EarshotCore
            #if canImport(Glibc)
                import Glibc
                let fine = Glibc.getpid()
            #endif
            #if canImport(Darwin)
                import Darwin
                let cache = FileManager.default.temporaryDirectory
            #else
                let home = FileManager.default.homeDirectoryForCurrentUser
            #endif
            let pid = Glibc.getpid()
            let child = Process()
            let status = "/proc/self/status"
            // Process() in a comment is fine.
            """.utf8
        ).write(to: root.appendingPathComponent("Sources/EarshotKit/Bad.swift"))
        try Data("import Foundation\n".utf8).write(to: root.appendingPathComponent("Sources/EarshotAPI/Ok.swift"))

        let result = try lint(root)
        #expect(result.status == 1, "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("EarshotKit must depend on ['EarshotAPI'] only") })
        #expect(lines.contains { $0.contains("Bad.swift:2: import FoundationNetworking outside #if") })
        #expect(lines.contains { $0.contains("Bad.swift:3:") && $0.contains("'EarshotCore' is not allowed") })
        #expect(lines.contains { $0.contains("Bad.swift:14: a Linux-only module's symbol") })
        #expect(lines.contains { $0.contains("Bad.swift:15: Process is unavailable on iOS") })
        #expect(lines.contains { $0.contains("Bad.swift:16: /proc exists only on Linux") })
        // Guarded lines (5, 6, 9, 12) and the comment (17) are not reported.
        #expect(!lines.contains { $0.range(of: #"Bad\.swift:(5|6|9|10|12|17):"#, options: .regularExpression) != nil })
        #expect(lines.last == "lint-kit: 6 problem(s); see docs/sdk.md#apple-platforms")
    }
}
