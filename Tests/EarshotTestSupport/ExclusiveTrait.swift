public import Testing

/// A trait that keeps suites (or tests) sharing `resource` from running at the same time, across suites and test
/// targets (`.serialized` orders the tests of one suite only).
///
/// For suites that decode speech in child processes: on a 2-core machine, five of them at once make every decode
/// several times slower, past the bounds the tests put on them.
public struct ExclusiveTrait: SuiteTrait, TestTrait, TestScoping {
    /// What the suites share, e.g. `"speech decoding"`.
    public let resource: String

    private static let gates = Gates()

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        // Once around a whole suite; once around each case of a test function that carries the trait itself.
        test.isSuite == (testCase == nil) ? self : nil
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Self.gates.gate(for: resource).withLock(resource) { try await function() }
    }

    private actor Gates {
        var byResource: [String: TaskGate] = [:]

        func gate(for resource: String) -> TaskGate {
            if let gate = byResource[resource] { return gate }
            let gate = TaskGate()
            byResource[resource] = gate
            return gate
        }
    }
}

extension Trait where Self == ExclusiveTrait {
    /// Runs this suite (or test) while no other suite or test marked with the same `resource` runs.
    public static func exclusive(_ resource: String) -> Self { ExclusiveTrait(resource: resource) }
}
