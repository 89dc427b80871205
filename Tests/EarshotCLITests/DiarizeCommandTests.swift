import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `earshot transcribe --diarize` and `earshot eval --rttm` through the built binary on the pyannote call and
/// espeak-ng voices.
@Suite(.serialized, .exclusive("speech decoding")) struct DiarizeCommandTests {
    static let call = TestEnvironment.testdata("pyannote/sample.wav").path
    static let ready = TestEnvironment.exist(
        TestEnvironment.testdata("pyannote/sample.wav"), TestEnvironment.asrFastModel, TestEnvironment.speakerWeights)
    static let espeak = SpeechSynthesis.available

    /// `turns` spoken by espeak-ng voices, each followed by a 0.5 s pause, as one WAV at `path`.
    func speak(_ turns: [(voice: String, text: String)], to path: String) throws {
        try SpeechSynthesis.dialogue(turns, gap: 0.5, leadingSilence: 0).wav.write(to: URL(fileURLWithPath: path))
    }

    @Test(.enabled(if: ready, "needs the setup's models, Resemblyzer weights and pyannote sample (make setup)"))
    func transcribeDiarizeLabelsBothCallersInSRTAndJSON() async throws {
        let srt = try await Program.earshot.run(
            ["transcribe", "--diarize", "--language", "en", "--format", "srt", Self.call], timeout: .seconds(300))
        #expect(srt.status == 0, "\(srt.stderr)")
        #expect(srt.stdout.contains("[Speaker 1]") && srt.stdout.contains("[Speaker 2]"), "\(srt.stdout)")

        let json = try await Program.earshot.run(
            [
                "transcribe", "--diarize", "--speakers", "2", "--speaker-label", "发言人 {n}", "--language", "en",
                "--format", "json", Self.call,
            ], timeout: .seconds(300))
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let segments = try #require(object?["segments"] as? [[String: Any]])
        #expect(Set(segments.compactMap { $0["speaker"] as? String }) == ["发言人 1", "发言人 2"])
        // Words served to split segments; they are not printed unless asked for.
        #expect(segments.allSatisfy { ($0["words"] as? [Any])?.isEmpty ?? true })
    }

    @Test(.enabled(if: ready && espeak, "needs the setup's models, Resemblyzer weights and espeak-ng"))
    func aVoiceprintNamesItsSpeaker() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("diar")
        defer { try? FileManager.default.removeItem(at: directory) }
        let me = SpeechSynthesis.voices[0], other = SpeechSynthesis.voices[1]
        let sample = directory.appendingPathComponent("me.wav").path
        try speak(SpeechSynthesis.enrolmentLines.map { (me, $0) }, to: sample)
        // Four turns of the support call: the other voice first, then alternating.
        let conversation = directory.appendingPathComponent("conversation.wav").path
        try speak(zip([other, me, other, me], SpeechSynthesis.dialogueLines).map { ($0, $1) }, to: conversation)
        let result = try await Program.earshot.run(
            ["transcribe", "--diarize", "--voiceprint", "Me=\(sample)", "--language", "en", conversation],
            timeout: .seconds(300))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("[Speaker 1]") == true, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("[Me]") }, "\(result.stdout)")
    }

    @Test(.enabled(if: ready, "needs the setup's models, Resemblyzer weights and pyannote sample (make setup)"))
    func evalWithRTTMReportsDERAndCpWER() async throws {
        let root = try TestEnvironment.makeTemporaryDirectory("diar")
        defer { try? FileManager.default.removeItem(at: root) }
        for folder in ["audio", "refs", "rttm"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(
            atPath: Self.call, toPath: root.appendingPathComponent("audio/sample.wav").path)
        try FileManager.default.copyItem(
            atPath: TestEnvironment.testdata("pyannote/sample.rttm").path,
            toPath: root.appendingPathComponent("rttm/sample.rttm").path)
        // Speaker-attributed references (speaker<TAB>text) from the STM transcript.
        let stm = try String(contentsOf: TestEnvironment.testdata("pyannote/sample.stm"), encoding: .utf8)
        let references = stm.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ", maxSplits: 5)
            return fields.count == 6 ? "\(fields[2])\t\(fields[5])" : nil
        }
        try (references.joined(separator: "\n") + "\n").write(
            to: root.appendingPathComponent("refs/sample.txt"), atomically: true, encoding: .utf8)
        let result = try await Program.earshot.run(
            [
                "eval", "--audio", root.path + "/audio", "--refs", root.path + "/refs", "--rttm", root.path + "/rttm",
            ], timeout: .seconds(300))
        #expect(result.status == 0, "\(result.stderr)")
        let der = result.stdout.split(separator: "\n").first { $0.hasPrefix("DER ") }.flatMap {
            Double($0.dropFirst(4))
        }
        let value = try #require(der, "\(result.stdout)")
        #expect(value < 0.25, "\(result.stdout)")
        #expect(result.stdout.contains("cpWER "), "\(result.stdout)")
    }

    @Test(.enabled(if: ready && espeak, "needs the setup's models, Resemblyzer weights and espeak-ng"))
    func voiceprintsCommandEnrolsListsAndDeletesOnAServer() async throws {
        let root = try TestEnvironment.makeTemporaryDirectory("diar")
        defer { try? FileManager.default.removeItem(at: root) }
        let sample = root.appendingPathComponent("me.wav").path
        try speak(SpeechSynthesis.enrolmentLines.prefix(2).map { (SpeechSynthesis.voices[0], $0) }, to: sample)
        let stack = try await ServeProcess.start(
            partner: "Voices", dataDirectory: root.appendingPathComponent("data").path)
        defer { stack.stop() }
        let (base, token) = (stack.base, try await stack.partnerToken())
        let server_ = ["--server", base, "--token", token, "--user", "wearer"]

        let enrolled = try await Program.earshot.run(
            ["voiceprints", "enroll", "Me", sample, "--json"] + server_, timeout: .seconds(180))
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(enrolled.stdout.utf8)) as? [[String: Any]])?.first?[
                "voiceprint_id"] as? String, "\(enrolled.stdout)")
        let listed = try await Program.earshot.run(["voiceprints", "list"] + server_, timeout: .seconds(60))
        #expect(listed.status == 0 && listed.stdout.contains("\(id)  wearer  Me"), "\(listed.stdout)")
        let deleted = try await Program.earshot.run(["voiceprints", "delete", id] + server_, timeout: .seconds(60))
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let empty = try await Program.earshot.run(["voiceprints", "list"] + server_, timeout: .seconds(60))
        #expect(empty.status == 0 && empty.stdout.isEmpty, "\(empty.stdout)")

        // Bad inputs: a partner token without --user, an unknown action, a missing file.
        let noUser = try await Program.earshot.run(
            ["voiceprints", "enroll", "Me", sample, "--server", base, "--token", token], timeout: .seconds(60))
        #expect(noUser.status == 1 && noUser.stderr.contains("user_id"), "\(noUser.stderr)")
        let unknown = try await Program.earshot.run(["voiceprints", "rename"] + server_)
        #expect(unknown.status == 64 && unknown.stderr.contains("enroll, list or delete"))
        let missing = try await Program.earshot.run(["voiceprints", "enroll", "Me", root.path + "/none.wav"] + server_)
        #expect(missing.status == 64 && missing.stderr.contains("no such file"))
    }

    @Test func badDiarizationArgumentsExit64WithAReason() async throws {
        let cases: [([String], String)] = [
            (["--speakers", "2"], "needs --diarize"),
            (["--voiceprint", "Me=x.wav"], "needs --diarize"),
            (["--diarize", "--speakers", "0"], "positive integer"),
            (["--diarize", "--min-speakers", "3", "--max-speakers", "2"], "min-speakers"),
            (["--diarize", "--speaker-label", "Speaker"], "{n}"),
            (["--diarize", "--voiceprint", "Me"], "NAME=FILE"),
            (["--diarize", "--voiceprint", "Me=/nonexistent.wav"], "no such file"),
        ]
        for (arguments, message) in cases {
            let result = try await Program.earshot.run(["transcribe"] + arguments + ["x.wav"])
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
