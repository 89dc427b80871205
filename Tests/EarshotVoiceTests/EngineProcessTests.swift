import Foundation
import Testing

@testable import EarshotVoice

/// The child-process runner under espeak-ng: a child that ignores its input, fails or hangs is reported, never a
/// crash or a hang of the caller.
@Suite struct EngineProcessTests {
    @Test func aChildThatExitsWithoutReadingItsInputIsReported() async throws {
        let process = EngineProcess(
            executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "echo gone >&2; exit 3"],
            timeout: .seconds(30))
        // Far more than a pipe holds: the writer meets a closed pipe.
        let output = try await process.run(input: Data(count: 4 << 20))
        #expect(output.status == 3)
        #expect(output.stderr.contains("gone"))
        #expect(!output.timedOut)
    }

    @Test func aChildPastItsTimeLimitIsStopped() async throws {
        let process = EngineProcess(
            executable: URL(fileURLWithPath: "/bin/sleep"), arguments: ["120"], timeout: .milliseconds(300))
        let clock = ContinuousClock()
        let start = clock.now
        let output = try await process.run(input: Data())
        #expect(output.timedOut)
        // Stopped at its limit, not left to sleep its 120 s (the bound leaves room for a loaded machine).
        #expect(clock.now - start < .seconds(20))
    }

    @Test func aMissingExecutableIsUnavailable() async throws {
        let process = EngineProcess(
            executable: URL(fileURLWithPath: "/nonexistent/engine"), arguments: [], timeout: .seconds(5))
        let error = await #expect(throws: VoiceError.self) { try await process.run(input: Data()) }
        #expect(error?.code == .unavailable)
    }

    @Test func aCancelledRunStopsTheChildAtOnce() async throws {
        let process = EngineProcess(
            executable: URL(fileURLWithPath: "/bin/sleep"), arguments: ["120"], timeout: .seconds(300))
        let clock = ContinuousClock()
        let start = clock.now
        let task = Task { try await process.run(input: Data()) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let output = try await task.value
        #expect(output.status != 0, "terminated by a signal")
        // Stopped when cancelled, not left to sleep its 120 s (the bound leaves room for a loaded machine).
        #expect(clock.now - start < .seconds(20))
    }
}
