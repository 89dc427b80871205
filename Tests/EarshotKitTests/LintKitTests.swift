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

    /// A tree with `Package.swift` declaring `platforms` and the planted `Sources/EarshotKit/Bad.swift` below.
    func plantedTree(platforms: String?) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lint-kit-\(UUID())")
        for module in ["EarshotKit", "EarshotAPI", "EarshotDevice"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("Sources/\(module)"), withIntermediateDirectories: true)
        }
        try Data(
            """
            targets += [.target(name: "EarshotAPI", swiftSettings: s)]
            targets += [.target(name: "EarshotDevice", swiftSettings: s)]
            targets += [.target(name: "EarshotKit", dependencies: ["EarshotAPI", "EarshotCore"], swiftSettings: s)]
            let package = Package(name: "Planted", \(platforms.map { "platforms: \($0), " } ?? "")targets: targets)
            """.utf8
        ).write(to: root.appendingPathComponent("Package.swift"))
        try Data(
            #"""
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
            let lock = Mutex(0)
            func wait() async throws { try await Task.sleep(for: .seconds(1)) }
            @available(iOS 16, macOS 13, *)
            func later(_ pause: Duration) async throws { try await Task.sleep(for: pause) }
            @available(iOS 16, *)
            func iOSOnly(_ pause: Duration) {}
            func soon() async throws {
                if #available(iOS 16, macOS 13, *) {
                    try await Task.sleep(for: .milliseconds(5))
                } else {
                    let clock = ContinuousClock()
                }
                guard #available(iOS 18, macOS 15, *) else { return }
                let fine = Mutex(1)
            }
            let text = "Duration, Mutex and Task.sleep(for:) in a string are fine"
            let path = URL(filePath: "/tmp")
            #if os(Linux)
                let linuxOnly: Duration = .seconds(1)
            #endif
            """#.utf8
        ).write(to: root.appendingPathComponent("Sources/EarshotKit/Bad.swift"))
        try Data("import Foundation\n".utf8).write(to: root.appendingPathComponent("Sources/EarshotAPI/Ok.swift"))
        return root
    }

    @Test func linuxOnlyAPIAndExtraDependenciesAreRejected() throws {
        let root = try plantedTree(platforms: "[.macOS(.v12), .iOS(.v15)]")
        defer { try? FileManager.default.removeItem(at: root) }

        let result = try lint(root)
        #expect(result.status == 1, "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("EarshotKit must depend on ['EarshotAPI', 'EarshotDevice'] only") })
        #expect(lines.contains { $0.contains("Bad.swift:2: import FoundationNetworking outside #if") })
        #expect(lines.contains { $0.contains("Bad.swift:3:") && $0.contains("'EarshotCore' is not allowed") })
        #expect(lines.contains { $0.contains("Bad.swift:14: a Linux-only module's symbol") })
        #expect(lines.contains { $0.contains("Bad.swift:15: Process is unavailable on iOS") })
        #expect(lines.contains { $0.contains("Bad.swift:16: /proc exists only on Linux") })
        // Guarded lines (5, 6, 9, 12) and the comment (17) are not reported.
        #expect(!lines.contains { $0.range(of: #"Bad\.swift:(5|6|9|10|12|17):"#, options: .regularExpression) != nil })
        #expect(lines.last == "lint-kit: 12 problem(s); see docs/sdk.md#apple-platforms")
    }

    @Test func apiAboveTheFloorIsRejectedOutsideAvailabilityChecks() throws {
        let root = try plantedTree(platforms: "[.macOS(.v12), .iOS(.v15)]")
        defer { try? FileManager.default.removeItem(at: root) }

        let lines = try lint(root).stderr.split(separator: "\n").map(String.init)
        let aboveFloor = lines.filter { $0.contains("above the floor (iOS 15 / macOS 12)") }
        #expect(aboveFloor.count == 6)
        func reported(_ line: Int, _ what: String) -> Bool {
            aboveFloor.contains { $0.contains("Bad.swift:\(line): \(what)") }
        }
        #expect(reported(18, "Synchronization.Mutex"))
        #expect(reported(19, "Task.sleep(for:)/sleep(until:)"))
        #expect(reported(19, "a Duration literal"))
        #expect(reported(23, "Duration"))  // @available(iOS 16, *) leaves macOS at the floor
        #expect(reported(28, "Clock"))  // the else branch of if #available
        #expect(reported(34, "URL(filePath:)"))
        // Covered by @available (20-21), if #available (26), guard #available (31); a string (33); Linux only (36).
        #expect(
            !lines.contains { $0.range(of: #"Bad\.swift:(20|21|26|31|33|36):"#, options: .regularExpression) != nil })
    }

    @Test func theFloorIsReadFromPackageSwift() throws {
        let raised = try plantedTree(platforms: "[.macOS(.v13), .iOS(.v16)]")
        defer { try? FileManager.default.removeItem(at: raised) }
        let lines = try lint(raised).stderr.split(separator: "\n").map(String.init)
        #expect(
            lines.contains { $0.contains("Bad.swift:18: Synchronization.Mutex") && $0.contains("(iOS 16 / macOS 13)") })
        #expect(!lines.contains { $0.contains("Bad.swift:19:") || $0.contains("Bad.swift:23:") })

        let undeclared = try plantedTree(platforms: nil)
        defer { try? FileManager.default.removeItem(at: undeclared) }
        let result = try lint(undeclared)
        #expect(result.status == 1)
        #expect(result.stderr.contains("Package.swift: no `platforms: [.macOS(.vN), .iOS(.vN)]`"))
    }
}
