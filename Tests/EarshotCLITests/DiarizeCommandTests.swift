import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `earshot transcribe --diarize` and `earshot eval --rttm` through the built binary on the pyannote call and
/// espeak-ng voices.
@Suite(.serialized) struct DiarizeCommandTests {
    static let home = ProcessInfo.processInfo.environment["EARSHOT_HOME"] ?? (NSHomeDirectory() + "/.cache/earshot")
    static let call = home + "/testdata/pyannote/sample.wav"
    static let ready =
        FileManager.default.fileExists(atPath: call)
        && FileManager.default.fileExists(atPath: home + "/models/ggml-base-q8_0.bin")
        && FileManager.default.fileExists(atPath: home + "/models/resemblyzer-0.1.4.eswt")
    static let espeak =
        ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
        .contains { FileManager.default.isExecutableFile(atPath: "\($0)/espeak-ng") } ?? false

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-diar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func tool(_ path: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(path) \(arguments) failed")
    }

    /// `lines` spoken by espeak-ng `voices` in turn, joined with 0.5 s pauses, as a 16 kHz WAV at `path`.
    func speak(_ turns: [(voice: String, text: String)], to path: String, in directory: URL) throws {
        var inputs: [String] = []
        for (index, turn) in turns.enumerated() {
            let wav = directory.appendingPathComponent("\(UUID().uuidString)-\(index).wav").path
            try tool("/usr/bin/espeak-ng", ["-v", turn.voice, "-s", "165", "-w", wav, turn.text])
            inputs += ["-i", wav]
        }
        let pads = turns.indices.map { "[\($0):a]aresample=16000,apad=pad_dur=0.5[a\($0)]" }.joined(separator: ";")
        let joined = turns.indices.map { "[a\($0)]" }.joined()
        try tool(
            "/usr/bin/ffmpeg",
            ["-loglevel", "error", "-y"] + inputs + [
                "-filter_complex", "\(pads);\(joined)concat=n=\(turns.count):v=0:a=1", "-ac", "1", "-ar", "16000", path,
            ])
    }

    @Test(.enabled(if: ready, "needs the setup's models, Resemblyzer weights and pyannote sample (make setup)"))
    func transcribeDiarizeLabelsBothCallersInSRTAndJSON() async throws {
        let srt = try await CLIProcess.run(
            ["transcribe", "--diarize", "--language", "en", "--format", "srt", Self.call], timeout: .seconds(300))
        #expect(srt.status == 0, "\(srt.stderr)")
        #expect(srt.stdout.contains("[Speaker 1]") && srt.stdout.contains("[Speaker 2]"), "\(srt.stdout)")

        let json = try await CLIProcess.run(
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
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let me = "en-us+m3", other = "en+f3"
        let sample = directory.appendingPathComponent("me.wav").path
        try speak(
            [
                (me, "The quick brown fox jumps over the lazy dog near the river bank."),
                (me, "Please remember to bring your umbrella, the forecast says it will rain all afternoon."),
                (me, "Our meeting has been moved to Thursday at half past two in the small conference room."),
            ], to: sample, in: directory)
        let conversation = directory.appendingPathComponent("conversation.wav").path
        try speak(
            [
                (other, "Good morning, thanks for calling the support line. How can I help you today?"),
                (me, "Hi, I ordered a pair of headphones last week and they still have not arrived."),
                (other, "I am sorry to hear that. Could you give me the order number, please?"),
                (me, "Sure, it is four seven two nine one, placed on Monday afternoon."),
            ], to: conversation, in: directory)
        let result = try await CLIProcess.run(
            ["transcribe", "--diarize", "--voiceprint", "Me=\(sample)", "--language", "en", conversation],
            timeout: .seconds(300))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("[Speaker 1]") == true, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("[Me]") }, "\(result.stdout)")
    }

    @Test(.enabled(if: ready, "needs the setup's models, Resemblyzer weights and pyannote sample (make setup)"))
    func evalWithRTTMReportsDERAndCpWER() async throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for folder in ["audio", "refs", "rttm"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(
            atPath: Self.call, toPath: root.appendingPathComponent("audio/sample.wav").path)
        try FileManager.default.copyItem(
            atPath: Self.home + "/testdata/pyannote/sample.rttm",
            toPath: root.appendingPathComponent("rttm/sample.rttm").path)
        // Speaker-attributed references (speaker<TAB>text) from the STM transcript.
        let stm = try String(contentsOfFile: Self.home + "/testdata/pyannote/sample.stm", encoding: .utf8)
        let references = stm.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ", maxSplits: 5)
            return fields.count == 6 ? "\(fields[2])\t\(fields[5])" : nil
        }
        try (references.joined(separator: "\n") + "\n").write(
            to: root.appendingPathComponent("refs/sample.txt"), atomically: true, encoding: .utf8)
        let result = try await CLIProcess.run(
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
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let sample = root.appendingPathComponent("me.wav").path
        try speak(
            [
                ("en-us+m3", "The quick brown fox jumps over the lazy dog near the river bank."),
                ("en-us+m3", "Please remember to bring your umbrella, the forecast says it will rain all afternoon."),
            ], to: sample, in: root)
        let stack = try await PartnerServer.start(
            partner: "Voices", dataDirectory: root.appendingPathComponent("data").path)
        defer { stack.stop() }
        let (base, token) = (stack.base, stack.token)
        let server_ = ["--server", base, "--token", token, "--user", "wearer"]

        let enrolled = try await CLIProcess.run(
            ["voiceprints", "enroll", "Me", sample, "--json"] + server_, timeout: .seconds(180))
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(enrolled.stdout.utf8)) as? [[String: Any]])?.first?[
                "voiceprint_id"] as? String, "\(enrolled.stdout)")
        let listed = try await CLIProcess.run(["voiceprints", "list"] + server_, timeout: .seconds(60))
        #expect(listed.status == 0 && listed.stdout.contains("\(id)  wearer  Me"), "\(listed.stdout)")
        let deleted = try await CLIProcess.run(["voiceprints", "delete", id] + server_, timeout: .seconds(60))
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let empty = try await CLIProcess.run(["voiceprints", "list"] + server_, timeout: .seconds(60))
        #expect(empty.status == 0 && empty.stdout.isEmpty, "\(empty.stdout)")

        // Bad inputs: a partner token without --user, an unknown action, a missing file.
        let noUser = try await CLIProcess.run(
            ["voiceprints", "enroll", "Me", sample, "--server", base, "--token", token], timeout: .seconds(60))
        #expect(noUser.status == 1 && noUser.stderr.contains("user_id"), "\(noUser.stderr)")
        let unknown = try await CLIProcess.run(["voiceprints", "rename"] + server_)
        #expect(unknown.status == 64 && unknown.stderr.contains("enroll, list or delete"))
        let missing = try await CLIProcess.run(["voiceprints", "enroll", "Me", root.path + "/none.wav"] + server_)
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
            let result = try await CLIProcess.run(["transcribe"] + arguments + ["x.wav"])
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
