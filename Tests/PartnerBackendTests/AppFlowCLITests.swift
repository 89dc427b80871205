import EarshotKit
import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `app-flow`, the app side of seed 001 as a command line, run as a child process against real `earshot serve`
/// and `partner-backend` processes: the whole flow on a real clip, and an upload SIGKILLed between parts that a
/// second run resumes from its journal.
@Suite(.serialized, .exclusive("speech decoding")) struct AppFlowCLITests {
    static let appFlow = Program.built("app-flow")

    static func arguments(_ stack: PartnerStack, session: String = "session-alice") -> [String] {
        ["--earshot", stack.earshot.absoluteString, "--backend", stack.backend.absoluteString, "--session", session]
    }

    @Test(.enabled(if: AppFlowTests.modelsInstalled, "needs the asr-fast model and jfk.wav: run `make models`"))
    func theCommandLineRunsTheSeedFlowOnARealClip() async throws {
        let usage = try await Self.appFlow.run()
        #expect(usage.status == 64 && usage.stderr.contains("usage: app-flow"), "\(usage.stderr)")

        try await PartnerStack.with { stack in
            // An app session the backend does not know: one line naming the code and status, exit 1.
            let refused = try await Self.appFlow.run(
                Self.arguments(stack, session: "session-stolen") + [AppFlowTests.jfk.path])
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("UNAUTHORIZED") && refused.stderr.contains("HTTP 401"), "\(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")

            let result = try await Self.appFlow.run(
                Self.arguments(stack) + [AppFlowTests.jfk.path], timeout: .seconds(600))
            #expect(result.status == 0, "\(result.stderr)\n\(result.stdout)")
            let size = try FileManager.default.attributesOfItem(atPath: AppFlowTests.jfk.path)[.size] as! Int
            #expect(result.stdout.contains("upload 0/\(size) bytes 0% (part 0/1)"), "\(result.stdout)")
            #expect(result.stdout.contains("upload \(size)/\(size) bytes 100% (part 1/1)"), "\(result.stdout)")
            #expect(result.stdout.contains("[00:0"), "\(result.stdout)")
            #expect(result.stdout.lowercased().contains("ask not what your country"), "\(result.stdout)")
        }
    }

    @Test(.enabled(if: AppFlowTests.modelsInstalled, "needs the asr-fast model and jfk.wav: run `make models`"))
    func anUploadKilledBetweenPartsResumesFromItsJournalAndIsByteIdentical() async throws {
        try await PartnerStack.with(earshotArguments: [
            "--upload-chunk-size", "64KiB", "--upload-max-file-size", "64MiB",
        ]) { stack in
            let file = stack.directory.appendingPathComponent("memo.wav")
            try Self.stereo48kWAV(repeating: AppFlowTests.jfk, times: 3).write(to: file)
            var arguments: [String] = []
            var killed = (seen: 0, total: 0, output: "")
            // First run: SIGKILL as soon as its output shows two finished parts. On a starved machine the kill can
            // land after the last part; then start over with a fresh journal (at most three times).
            for attempt in 1...3 {
                let journal = stack.directory.appendingPathComponent("journal-\(attempt)").path
                arguments = Self.arguments(stack) + ["--journal", journal, file.path]
                killed = try await Self.runKilling(arguments, afterParts: 2)
                if killed.seen < killed.total { break }
            }
            #expect(killed.seen >= 2 && killed.seen < killed.total, "\(killed.output)")
            #expect(!killed.output.contains("uploaded "), "\(killed.output)")

            // Second run, same journal and file: only the missing parts, then the transcript.
            let result = try await Self.appFlow.run(arguments, timeout: .seconds(600))
            #expect(result.status == 0, "\(result.stderr)\n\(result.stdout)")
            let progress = Self.parts(in: result.stdout)
            let resumedAt = try #require(progress.first, "\(result.stdout)").done
            #expect(resumedAt >= killed.seen && resumedAt < killed.total, "\(result.stdout)")
            let uploaded = try #require(
                result.stdout.split(separator: "\n").first { $0.hasPrefix("uploaded ") }, "\(result.stdout)")
            #expect(uploaded.hasSuffix("sent \(killed.total - resumedAt) parts (resumed)"), "\(uploaded)")
            #expect(result.stdout.lowercased().contains("ask not what your country"), "\(result.stdout)")

            // The stored file is the local file, byte for byte.
            let fileID = String(uploaded.split(separator: " ")[1].dropLast())
            let app = EarshotClient(baseURL: stack.earshot, token: try await stack.userToken().token)
            let info = try await app.file(fileID)
            let (stored, response) = try await URLSession.shared.data(from: URL(string: info.downloadURL)!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let local = try Data(contentsOf: file)
            #expect(stored.count == local.count)
            #expect(MD5.hex(Array(stored)) == MD5.hex(Array(local)))
        }
    }

    // MARK: Helpers

    /// `(done, total)` of every `upload … (part done/total)` line.
    static func parts(in output: String) -> [(done: Int, total: Int)] {
        output.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("upload "), let open = line.lastIndex(of: "(") else { return nil }
            let numbers = line[open...].dropFirst("(part ".count).dropLast().split(separator: "/")
            guard numbers.count == 2, let done = Int(numbers[0]), let total = Int(numbers[1]) else { return nil }
            return (done, total)
        }
    }

    /// Runs `app-flow`, reads its progress as it comes and SIGKILLs it once `afterParts` parts are done.
    static func runKilling(
        _ arguments: [String], afterParts: Int, timeout: Duration = .seconds(120)
    ) async throws -> (seen: Int, total: Int, output: String) {
        let child = try appFlow.start(arguments)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let output = child.output(.stdout)
            if let last = parts(in: output).last, last.done >= afterParts {
                let killed = child.kill()
                #expect(killed.signal == SIGKILL, "\(killed)")
                return (last.done, last.total, output)
            }
            guard child.isRunning else { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        let ended = child.kill()
        throw ChildProcessError("app-flow never reported \(afterParts) parts: \(ended.stdout)", ended)
    }

    /// A valid 16-bit PCM WAV at 48 kHz stereo holding a 16 kHz mono WAV's speech `times` times (≈ 2 MiB per
    /// jfk.wav), so a real clip fills many upload parts and still transcribes in seconds.
    static func stereo48kWAV(repeating source: URL, times: Int) throws -> Data {
        let samples = [UInt8](TestWAV.chunks(of: try Data(contentsOf: source)).data)
        var frames: [UInt8] = []
        frames.reserveCapacity(samples.count * 6 * times)
        for _ in 0..<times {
            for index in stride(from: samples.startIndex, to: samples.endIndex - 1, by: 2) {
                let sample = samples[index...index + 1]
                for _ in 0..<6 { frames += sample }  // 3 frames at 48 kHz × 2 channels
            }
        }
        func le(_ value: Int, _ width: Int) -> [UInt8] { (0..<width).map { UInt8((value >> (8 * $0)) & 0xff) } }
        let header =
            Array("RIFF".utf8) + le(36 + frames.count, 4) + Array("WAVEfmt ".utf8) + le(16, 4) + le(1, 2) + le(2, 2)
            + le(48_000, 4) + le(48_000 * 4, 4) + le(4, 2) + le(16, 2) + Array("data".utf8) + le(frames.count, 4)
        return Data(header + frames)
    }
}
