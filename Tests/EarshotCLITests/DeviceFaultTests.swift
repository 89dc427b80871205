import EarshotTestSupport
import Foundation
import Testing

/// Proof of no loss, small: `scripts/fault-device` (what `make fault-device` runs with 50 kills) with a few SIGKILLs
/// of the app, the simulator and the server, on the debug binary. Every recording must end on the server exactly
/// once with the card's SHA-256, nothing freed first, no duplicates, the card never over capacity.
@Suite(.serialized) struct DeviceFaultTests {
    static let script = TestEnvironment.repository.appendingPathComponent("scripts/fault-device")
    static let ready =
        TestEnvironment.exist(TestEnvironment.jfk) && Program.tool("python3") != nil
        && FileManager.default.isExecutableFile(atPath: script.path)

    @Test(.enabled(if: ready, "needs python3 and the test audio (make setup)"))
    func killsOfAppSimulatorAndServerLoseNothing() async throws {
        let python = try #require(Program.tool("python3"))
        let result = try await python.run(
            [
                Self.script.path, "--kills", "9", "--seed", "16", "--binary", TestEnvironment.product("earshot").path,
            ], environment: ["EARSHOT_HOME": TestEnvironment.home.path], timeout: .seconds(600))
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("violations: 0"), "\(result.stdout)")
        #expect(result.stdout.contains("kills: 9"), "\(result.stdout)")
    }
}
