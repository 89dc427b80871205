import Foundation
public import Testing

/// Process-wide measurements (resident memory) for tests that must not see other tests' allocations.
///
/// Swift Testing runs suites in parallel inside one process, so a test that asserts on the process's RSS would
/// also count what other suites allocate at the same moment. ``runsIsolated(_:timeout:sourceLocation:)`` re-runs
/// the calling test alone in a child process of this test binary and reports the child's result.
public enum IsolatedProcess {
    static let variable = "EARSHOT_ISOLATED_TEST"

    /// True in the child (the caller then does the work and asserts); false in the parent, after the child ran
    /// `testName` alone and its failures were recorded here.
    ///
    /// - Parameter testName: the test function's name, used as the `--filter` pattern.
    public static func runsIsolated(
        _ testName: String = #function, timeout: Duration = .seconds(120),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Bool {
        let name = String(testName.prefix { $0 != "(" })
        if ProcessInfo.processInfo.environment[variable] == name { return true }
        let child = try Program.testBinary.start(
            ["--testing-library", "swift-testing", "--filter", name], environment: [variable: name])
        let result: ProcessResult
        do {
            result = try await child.waitForExit(timeout: timeout)
        } catch let error as ChildProcessError {
            Issue.record("\(name) did not finish in its own process: \(error)", sourceLocation: sourceLocation)
            return false
        }
        let log = result.stdout + result.stderr
        let ranOne = log.contains("Test run with 1 test")
        if result.status != 0 || !ranOne {
            let failures = log.split(separator: "\n").filter { $0.contains("✘") || $0.contains("recorded an issue") }
            Issue.record(
                Comment(
                    rawValue: "\(name) failed in its own process (\(result.ending)):\n"
                        + (failures.isEmpty ? String(log.suffix(2000)) : failures.joined(separator: "\n"))),
                sourceLocation: sourceLocation)
        }
        return false
    }

    /// Resident set size of this process in bytes (from /proc/self/statm).
    public static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}
