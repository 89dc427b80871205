import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// The contract: schemathesis (PyPI, installed into `$EARSHOT_HOME/venv` by `scripts/setup`'s test tools step)
/// generates requests from `GET /openapi.json` — valid ones, invalid ones, edge cases of every constraint — and
/// checks every answer against the document: no 5xx, only documented statuses, content types and headers, response
/// bodies matching their schemas, schema-valid requests accepted and schema-violating ones refused, `Allow` on
/// 405. Bounded (examples per operation, a fixed seed) so it fits `make test`; run once with a partner token and
/// once with a user token. The settings and the rules JSON Schema cannot state are in
/// `Tests/Contract/schemathesis.toml`. Issue 13, finding 14.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct ContractTests {
    static let schemathesis = TestEnvironment.home.appendingPathComponent("venv/bin/schemathesis")
    static let settings = TestEnvironment.repository.appendingPathComponent("Tests/Contract/schemathesis.toml")

    @Test(arguments: ["partner", "user"])
    func theServerKeepsItsOpenAPIContract(token kind: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.schemathesis.path) else {
            Issue.record("schemathesis is not installed: run make setup (its test tools step)")
            return
        }
        try await TestPlatform.with({
            $0.workers = 0
            $0.llmManaged = false
            // The accounts' per-address limits would answer most generated requests 429 and leave their logic
            // untested.
            $0.accounts.ipLimit = "100000/1m"
            $0.accounts.addressLimit = "100000/1m"
            $0.accounts.accountLimit = "100000/1m"
            // A generated 4096-character input can speak for half an hour: refused after a minute of speech.
            $0.speechMaxDuration = .seconds(60)
        }) { platform in
            let (_, partnerToken, userToken) = try await platform.newUser("contract-user")
            let token = kind == "partner" ? partnerToken : userToken
            let report = platform.directory.appendingPathComponent("schemathesis-\(kind).txt")
            let result = try await Program(Self.schemathesis).run(
                [
                    "--config-file", Self.settings.path, "--no-color", "run",
                    platform.base.absoluteString + "/openapi.json", "-H", "Authorization: Bearer \(token)",
                    "--max-examples", "25", "--seed", "20261201", "--phases", "examples,coverage,fuzzing",
                    "--workers", "1", "--request-timeout", "20",
                ], timeout: .seconds(480))
            try? result.stdoutData.write(to: report)
            // The failures (each with its curl reproduction) and the summary.
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            let failures = lines.drop { !$0.contains("FAILURES") }.prefix { !$0.contains("WARNINGS") }.prefix(150)
            let summary = (failures + lines.suffix(25)).joined(separator: "\n")
            #expect(result.status == 0, "schemathesis (\(kind) token) found problems:\n\(summary)")
            #expect(result.stdout.contains("generated"), "schemathesis ran no case:\n\(summary)")
        }
    }
}
