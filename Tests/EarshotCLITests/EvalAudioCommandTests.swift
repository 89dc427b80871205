import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `earshot eval` (the perfusion run) through the built binary with the real engine on the setup's clips.
@Suite(.serialized, .exclusive("speech decoding")) struct EvalAudioCommandTests {
    static let ready = TestEnvironment.exist(TestEnvironment.jfk, TestEnvironment.asrFastModel)

    /// jfk + two LibriVox clips with their references.
    func makeSet() throws -> URL {
        let root = try TestEnvironment.makeTemporaryDirectory("perf")
        let audio = root.appendingPathComponent("audio")
        let refs = root.appendingPathComponent("refs")
        try FileManager.default.createDirectory(at: audio, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: refs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestEnvironment.jfk.path, toPath: audio.path + "/jfk.wav")
        try
            "And so my fellow Americans, ask not what your country can do for you,\nask what you can do for your country.\n"
            .write(toFile: refs.path + "/jfk.txt", atomically: true, encoding: .utf8)
        let transcription = try String(contentsOf: TestEnvironment.testdata("librivox/transcription"), encoding: .utf8)
        for id in ["0880", "0890"] {
            let name = "sense_and_sensibility_01_austen_64kb-\(id)"
            try FileManager.default.copyItem(
                atPath: TestEnvironment.testdata("librivox/\(name).wav").path, toPath: audio.path + "/\(name).wav")
            let line = try #require(transcription.split(separator: "\n").first { $0.contains("(\(name))") })
            let text = line.replacingOccurrences(of: "<s> ", with: "").components(separatedBy: " </s>")[0]
            try text.write(toFile: refs.path + "/\(name).txt", atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test(.enabled(if: ready, "needs the setup's models and test audio (make setup)"))
    func scoresTheClipsWritesTheReportAndGates() async throws {
        let root = try makeSet()
        defer { try? FileManager.default.removeItem(at: root) }
        let report = root.appendingPathComponent("report.html").path
        let json = root.appendingPathComponent("result.json").path
        let result = try await Program.earshot.run(
            [
                "eval", "--audio", root.path + "/audio", "--refs", root.path + "/refs", "--report", report, "--json",
                json, "--max-wer", "0.3",
            ], timeout: .seconds(240))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("jfk  WER 0.0000"))
        #expect(result.stdout.contains("total  WER "))
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("asr-fast (ggml-base-q8_0.bin)"))
        let object =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let wer = try #require(object?["wordErrorRate"] as? Double)
        #expect(wer < 0.2)
        #expect((object?["documents"] as? [Any])?.count == 3)

        let strict = try await Program.earshot.run(
            ["eval", "--audio", root.path + "/audio", "--refs", root.path + "/refs", "--max-wer", "0"],
            timeout: .seconds(240))
        #expect(strict.status == (wer > 0 ? 3 : 0))
    }

    @Test(.enabled(if: ready, "needs the setup's models and test audio (make setup)"))
    func aRefusedWAVIsReportedWithTheConversionCommand() async throws {
        let root = try makeSet()
        defer { try? FileManager.default.removeItem(at: root) }
        try FFmpeg.convert(
            TestEnvironment.jfk, to: root.appendingPathComponent("audio/mulaw.wav"), ["-c:a", "pcm_mulaw"])
        try "ask not".write(toFile: root.path + "/refs/mulaw.txt", atomically: true, encoding: .utf8)
        let result = try await Program.earshot.run(
            ["eval", "--audio", root.path + "/audio", "--refs", root.path + "/refs"], timeout: .seconds(240))
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("earshot eval: mulaw:"))
        #expect(result.stderr.contains("ffmpeg -i"))
        #expect(result.stdout.contains("jfk  WER"))  // the other files were still scored
    }

    @Test(.enabled(if: ready, "needs the setup's models and test audio (make setup)"))
    func runsThroughARunningServerWithAPartnerToken() async throws {
        let root = try makeSet()
        defer { try? FileManager.default.removeItem(at: root) }
        let stack = try await ServeProcess.start(
            partner: "Eval", dataDirectory: root.appendingPathComponent("data").path)
        defer { stack.stop() }
        let (base, token) = (stack.base, try await stack.partnerToken())

        let result = try await Program.earshot.run(
            [
                "eval", "--audio", root.path + "/audio", "--refs", root.path + "/refs", "--server", base, "--token",
                token, "--max-wer", "0.3",
            ], timeout: .seconds(300))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("jfk  WER 0.0000"))
        #expect(result.stdout.contains("total  WER "))

        let forged = try await Program.earshot.run(
            [
                "eval", "--audio", root.path + "/audio", "--refs", root.path + "/refs", "--server", base, "--token",
                "x.y.z",
            ],
            timeout: .seconds(60))
        #expect(forged.status == 1, "\(forged)")
        #expect(forged.stderr.lowercased().contains("unauthorized"))
    }

    @Test func unpairedFilesAreAClearError() async throws {
        let root = try TestEnvironment.makeTemporaryDirectory("perf")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("a"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("r"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data().write(to: root.appendingPathComponent("a/memo.wav"))
        let result = try await Program.earshot.run(["eval", "--audio", root.path + "/a", "--refs", root.path + "/r"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("no partner file in \(root.path)/r for: memo"), "\(result.stderr)")

        // More references than audio: the message names the references without audio, not the other way round.
        try FileManager.default.removeItem(at: root.appendingPathComponent("a/memo.wav"))
        try Data("hello".utf8).write(to: root.appendingPathComponent("r/call.txt"))
        let extra = try await Program.earshot.run(["eval", "--audio", root.path + "/a", "--refs", root.path + "/r"])
        #expect(extra.status == 1, "\(extra)")
        #expect(extra.stderr.contains("no partner file in \(root.path)/a for: call"), "\(extra.stderr)")
    }

    /// `--live`: the clips replayed through the in-process live session at 8× real time, each final decoded after
    /// the items before it (`--final-window-ms`); the report holds the streamed and the offline WER of the same
    /// files and the latencies, and they are sane.
    @Test(.enabled(if: ready, "needs the setup's models and test audio (make setup)"))
    func liveReplayReportsStreamedNextToOfflineWERWithLatencies() async throws {
        let root = try makeSet()
        defer { try? FileManager.default.removeItem(at: root) }
        let report = root.appendingPathComponent("live.html").path
        let json = root.appendingPathComponent("live.json").path
        let result = try await Program.earshot.run(
            [
                "eval", "--audio", root.path + "/audio", "--refs", root.path + "/refs", "--live", "--speed", "8",
                "--final-window-ms", "10000", "--report", report, "--json", json,
            ], timeout: .seconds(600))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("jfk  WER "))
        #expect(result.stdout.contains("(offline 0.0000)"), "\(result.stdout)")
        #expect(result.stdout.contains("live  streamed WER "))
        #expect(result.stdout.contains("live  speech end -> final  p50 "), "\(result.stdout)")

        let object =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let live = try #require(object?["live"] as? [String: Any])
        let streamed = try #require(live["streamedWordErrorRate"] as? Double)
        let offline = try #require(live["offlineWordErrorRate"] as? Double)
        #expect(offline < 0.2)
        // The streamed finals decode each turn on its own: close to the offline text of the same clips.
        #expect(streamed < offline + 0.15, "streamed \(streamed), offline \(offline)")
        #expect(streamed == object?["wordErrorRate"] as? Double)
        #expect((live["documents"] as? [Any])?.count == 3)
        #expect(live["speed"] as? Double == 8)
        // JFK's pauses and the two LibriVox sentences: at least one utterance per file.
        let utterances = try #require(live["utterances"] as? [[String: Any]])
        #expect(utterances.count >= 3)
        let final = try #require(live["final"] as? [String: Any])
        let p50 = try #require(final["p50"] as? Double)
        let p95 = try #require(final["p95"] as? Double)
        // A final needs a decode after the turn's end: later than the end, and within the replay (its wall time,
        // audio and decodes of all three files: a bound that holds on a loaded machine, where finals queue).
        let elapsed = try #require((object?["timing"] as? [String: Any])?["elapsedSeconds"] as? Double)
        #expect(p50 > 0 && p50 <= p95 && p95 < elapsed, "final p50 \(p50) p95 \(p95), replay \(elapsed) s")
        for utterance in utterances {
            let seconds = try #require(utterance["finalSeconds"] as? Double)
            #expect(seconds > 0 && seconds < elapsed)
            if let partial = utterance["firstPartialSeconds"] as? Double { #expect(partial > 0 && partial < elapsed) }
        }

        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(html.contains("<section id=\"live\">"))
        #expect(html.contains("id=\"kpi-offline-wer\""))
        #expect(html.contains("id=\"kpi-final-p95\""))
        #expect(html.contains("8.0× real time"))
        #expect(html.contains("final_window_ms 10000"), "the replay's settings name the window")
        #expect(html.contains("Earshot live perfusion report"))
    }

    @Test func liveOptionsAreCheckedBeforeAnythingRuns() async throws {
        let speed = try await Program.earshot.run(
            ["eval", "--audio", "/nonexistent/a", "--refs", "/nonexistent/r", "--live", "--speed", "0"])
        #expect(speed.status == 64, "\(speed)")
        #expect(speed.stderr.contains("--speed must be a number from 0.5 to 100, not '0'"), "\(speed.stderr)")
        let word = try await Program.earshot.run(
            ["eval", "--audio", "/nonexistent/a", "--refs", "/nonexistent/r", "--live", "--speed", "fast"])
        #expect(word.status == 64, "\(word)")
        let alone = try await Program.earshot.run(
            ["eval", "--audio", "/nonexistent/a", "--refs", "/nonexistent/r", "--speed", "4"])
        #expect(alone.status == 64, "\(alone)")
        #expect(alone.stderr.contains("--speed and --final-window-ms are for the --live replay"), "\(alone.stderr)")
        let window = try await Program.earshot.run(
            ["eval", "--audio", "/nonexistent/a", "--refs", "/nonexistent/r", "--live", "--final-window-ms", "30000"])
        #expect(window.status == 64, "\(window)")
        #expect(
            window.stderr.contains("--final-window-ms must be whole milliseconds from 0 to 25000, not '30000'"),
            "\(window.stderr)")
        let windowAlone = try await Program.earshot.run(
            ["eval", "--audio", "/nonexistent/a", "--refs", "/nonexistent/r", "--final-window-ms", "10000"])
        #expect(windowAlone.status == 64, "\(windowAlone)")
        let server = try await Program.earshot.run(
            [
                "eval", "--audio", "/nonexistent/a", "--refs", "/nonexistent/r", "--live", "--server",
                "http://127.0.0.1:9", "--token", "t",
            ])
        #expect(server.status == 64, "\(server)")
        #expect(server.stderr.contains("it takes neither --server nor --rttm"), "\(server.stderr)")
    }
}
