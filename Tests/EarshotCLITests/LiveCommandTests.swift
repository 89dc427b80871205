import EarshotTestSupport
import Foundation
import Testing

/// `earshot live FILE` through the built binary against a running `earshot serve`: JFK's clip (an MP3, so the file
/// is decoded and resampled to 24 kHz) streamed at `--speed max` with server VAD prints partials, then the final
/// text with its times and the record id; `--manual --json` prints the server's events; bad arguments, a refused
/// token and a file that is not audio exit non-zero with a clear message.
@Suite(.serialized, .exclusive("speech decoding")) struct LiveCommandTests {
    static let ready = TestEnvironment.exist(TestEnvironment.jfk, TestEnvironment.asrFastModel)
    static let phrase = "ask not what your country can do for you"

    @Test(.enabled(if: ready, "needs the setup's models and test audio (make setup)"))
    func streamsAFileAndPrintsPartialsFinalsAndTheRecord() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("live-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mp3 = directory.appendingPathComponent("jfk.mp3").path
        try FFmpeg.run(["-i", TestEnvironment.jfk.path, "-c:a", "libmp3lame", "-b:a", "64k", mp3])
        let stack = try await ServeProcess.start(
            partner: "Live", dataDirectory: directory.appendingPathComponent("data").path)
        defer { stack.stop() }
        let token = try await stack.partnerToken()

        let run = try await Program.earshot.run(
            [
                "live", mp3, "--speed", "max", "--server", stack.base, "--language", "en", "--silence", "1200",
                "--final-window-ms", "10000",
            ],
            environment: ["EARSHOT_TOKEN": token], timeout: .seconds(600))
        #expect(run.status == 0, "\(run)\n\(stack.child.diagnostics)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        // Not a terminal: partials are plain '… text' lines before the finals, '[MM:SS.s → MM:SS.s] text'.
        let finals = lines.filter { $0.hasPrefix("[") }
        #expect(!finals.isEmpty, "\(run.stdout)")
        let finalText = finals.map { $0.split(separator: "] ", maxSplits: 1).last.map(String.init) ?? "" }
            .joined(separator: " ").lowercased()
        // Words only: a long turn may be cut at a pause ("… ask not." / "what your country …", live.md).
        let finalWords = finalText.split { !$0.isLetter && $0 != "'" }.joined(separator: " ")
        #expect(finalWords.contains(Self.phrase), "\(run.stdout)")
        #expect(
            finals.allSatisfy {
                $0.range(of: #"^\[\d\d:\d\d\.\d → \d\d:\d\d\.\d\] "#, options: .regularExpression) != nil
            })
        let firstPartial = lines.firstIndex { $0.hasPrefix("… ") }
        let firstFinal = lines.firstIndex { $0.hasPrefix("[") }
        #expect(firstPartial != nil && firstPartial! < firstFinal!, "\(run.stdout)")
        let record = try #require(lines.last, "\(run.stdout)")
        #expect(record.hasPrefix("record rec"), "\(run.stdout)")

        // On a terminal (script(1) gives it one), at the pace it is spoken: the progress line shows the words not yet
        // stable dimmed (interim text, asked for only there), and the finals and the record follow as before.
        if let script = TestEnvironment.executable(named: "script") {
            var terminal = Program(script, inheritance: .allExcept(prefix: "EARSHOT_"))
            terminal.environment = Program.earshot.environment.merging(["EARSHOT_TOKEN": token]) { $1 }
            let command = [Program.earshot.executable.path, "live", mp3, "--server", stack.base, "--language", "en"]
                .map { "'\($0)'" }.joined(separator: " ")
            let shown = try await terminal.run(["-q", "-e", "-c", command, "/dev/null"], timeout: .seconds(600))
            #expect(shown.status == 0, "\(shown)")
            let dimmed = shown.stdout.ranges(of: #/\x1B\[2m[^\x1B]*[A-Za-z][^\x1B]*\x1B\[0m/#)
            #expect(!dimmed.isEmpty, "no interim text on the progress line: \(shown.stdout.debugDescription)")
            #expect(shown.stdout.contains("record rec"), "\(shown.stdout.debugDescription)")
        }

        // --manual --json: the server's events, one JSON object a line, ending with the close.
        let json = try await Program.earshot.run(
            ["live", mp3, "--speed", "max", "--manual", "--json", "--server", stack.base, "--token", token],
            timeout: .seconds(600))
        #expect(json.status == 0, "\(json)")
        let events = json.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let types = events.compactMap { $0["type"] as? String }
        #expect(types.first == "session.created" && types.last == "closed", "\(types)")
        #expect(!types.contains("input_audio_buffer.speech_started"), "manual: no VAD events: \(types)")
        let completed = events.filter {
            ($0["type"] as? String) == "conversation.item.input_audio_transcription.completed"
        }
        #expect(completed.count == 1)
        let manualText = ((completed.first?["transcript"] as? String) ?? "").lowercased()
        #expect(manualText.contains(Self.phrase), "\(manualText)")
        #expect((events.first?["record_id"] as? String)?.hasPrefix("rec") == true)

        // A refused token: the server's 401, exit 1.
        let refused = try await Program.earshot.run(
            ["live", mp3, "--speed", "max", "--server", stack.base, "--token", "forged"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("UNAUTHORIZED"), "\(refused.stderr)")

        // A setting the server refuses: exit 1 naming it.
        let badLanguage = try await Program.earshot.run(
            ["live", mp3, "--speed", "max", "--server", stack.base, "--token", token, "--language", "xx"])
        #expect(badLanguage.status == 1, "\(badLanguage)")
        #expect(badLanguage.stderr.contains("language"), "\(badLanguage.stderr)")

        // A file that is not audio.
        let text = directory.appendingPathComponent("notes.txt")
        try Data("not audio at all".utf8).write(to: text)
        let notAudio = try await Program.earshot.run(
            ["live", text.path, "--server", stack.base, "--token", token])
        #expect(notAudio.status == 1, "\(notAudio)")
        #expect(notAudio.stderr.hasPrefix("earshot live: "), "\(notAudio.stderr)")
    }

    /// `--dialogue`: a Spanish turn on side 0 (espeak-ng) with sides es,en is printed with its side, translated into
    /// English (Whisper's translate task: no language model needed) and spoken to side 1, and `--audio-out` keeps
    /// that speech as a WAV the engine hears the translation in.
    @Test(.enabled(if: ready && SpeechSynthesis.available, "needs the setup's models and espeak-ng (make setup)"))
    func aDialogueTurnIsTranslatedAndSpokenToTheOtherSide() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("live-dialogue-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let spanish = directory.appendingPathComponent("es.wav")
        try SpeechSynthesis.speak(SpeechSynthesis.spanishLine, voice: "es", speed: 130, to: spanish)
        let spoken = directory.appendingPathComponent("spoken")
        let stack = try await ServeProcess.start(
            partner: "Dialogue", dataDirectory: directory.appendingPathComponent("data").path)
        defer { stack.stop() }
        let token = try await stack.partnerToken()

        let run = try await Program.earshot.run(
            [
                "live", "--dialogue", spanish.path, "--languages", "es,en", "--speed", "max", "--silence", "1200",
                "--audio-out", spoken.path, "--server", stack.base,
            ],
            environment: ["EARSHOT_TOKEN": token], timeout: .seconds(900))
        #expect(run.status == 0, "\(run)\n\(stack.child.diagnostics)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let finals = lines.filter { $0.hasPrefix("[0 es] [") }
        #expect(!finals.isEmpty, "\(run.stdout)")
        #expect(finals.joined().lowercased().contains("buenos"), "\(run.stdout)")
        let translationLine = try #require(lines.first { $0.hasPrefix("  → en: ") }, "\(run.stdout)")
        let translation = String(translationLine.dropFirst("  → en: ".count))
        #expect(Self.words(translation).count >= 3, "\(translationLine)")
        let speech = try #require(lines.first { $0.hasPrefix("  ♪ to 1 (en): ") }, "\(run.stdout)")
        let file = try #require(speech.components(separatedBy: " → ").last, "\(speech)")
        #expect(FileManager.default.fileExists(atPath: file), "\(speech)")
        #expect(lines.last?.hasPrefix("record rec") == true, "\(run.stdout)")

        // The spoken WAV says the translation: the engine hears most of its words in it.
        let heard = try await Program.earshot.run(["transcribe", file, "--language", "en"], timeout: .seconds(600))
        #expect(heard.status == 0, "\(heard)")
        let said = Self.words(translation)
        let recall = Double(said.intersection(Self.words(heard.stdout)).count) / Double(max(1, said.count))
        #expect(recall >= 0.6, "said \(translation), heard \(heard.stdout)")
    }

    /// Lowercased words without punctuation.
    static func words(_ text: String) -> Set<String> {
        Set(text.lowercased().split { !$0.isLetter && $0 != "'" }.map(String.init))
    }

    @Test func badArgumentsExit64WithTheReason() async throws {
        let file = TestEnvironment.jfk.path
        let cases: [([String], String)] = [
            (["live"], "FILE"),
            (["live", "/nonexistent.wav", "--server", "http://127.0.0.1:1", "--token", "t"], "no such file"),
            (["live", file, "--token", "t"], "--server needs"),
            (["live", file, "--server", "ftp://x", "--token", "t"], "--server needs"),
            (["live", file, "--server", "http://127.0.0.1:1"], "--token needs"),
            (["live", file, "--server", "http://127.0.0.1:1", "--token", "t", "--speed", "0"], "--speed must"),
            (["live", file, "--server", "http://127.0.0.1:1", "--token", "t", "--speed", "fast"], "--speed must"),
            (["live", file, "--server", "http://127.0.0.1:1", "--token", "t", "--timeout", "-1"], "--timeout must"),
            (["live", file, "--server", "http://127.0.0.1:1", "--token", "t", "--silence", "5"], "--silence must"),
            (["live", file, "--server", "http://127.0.0.1:1", "--token", "t", "--final-window-ms", "-1"], "--final-window-ms must"),
            (["live", file, file, "--server", "http://127.0.0.1:1", "--token", "t"], "several turns with --dialogue"),
            (["live", file, "--server", "http://127.0.0.1:1", "--token", "t", "--languages", "en,es"], "--languages goes with --dialogue"),
            (["live", "--dialogue", file, "--server", "http://127.0.0.1:1", "--token", "t"], "--dialogue needs --languages"),
            (["live", "--dialogue", file, "--server", "http://127.0.0.1:1", "--token", "t", "--languages", "en"], "--languages takes two values"),
            (["live", "--dialogue", file, "--server", "http://127.0.0.1:1", "--token", "t", "--languages", "en,es", "--mute", "2"], "--mute takes a side"),
            (["live", "--dialogue", file, "--server", "http://127.0.0.1:1", "--token", "t", "--languages", "en,es", "--translate-to", "fr"], "not --language or --translate-to"),
        ]
        for (arguments, reason) in cases {
            let run = try await Program.earshot.run(
                arguments, environment: ["EARSHOT_TOKEN": "", "EARSHOT_SERVER": ""])
            #expect(run.status == 64, "\(arguments): \(run)")
            #expect(run.stderr.contains(reason), "\(arguments): \(run.stderr)")
        }
        // Nothing listening: a network error, exit 1.
        let unreachable = try await Program.earshot.run(
            ["live", file, "--server", "http://127.0.0.1:1", "--token", "t"])
        #expect(unreachable.status == 1 && unreachable.stderr.contains("NETWORK"), "\(unreachable)")
        let help = try await Program.earshot.run(["live", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--speed"), "\(help)")
    }
}
