import EarshotEval
import EarshotServer
import EarshotStore
import EarshotTestSupport
import Foundation
import Testing

/// The web console in a real browser: `Browser/console_browser.py` drives Debian's headless Chromium through
/// Selenium (both installed by `scripts/setup`) against a real `earshot serve`, as a person would — sign up with the
/// code from the server's log channel, sign out and in, upload a non-audio file and a spoken dialogue, watch it
/// transcribe, see the wave, click the third sentence, rename a speaker, search, open the hit, HTML in a title,
/// another account's record, an ended session, delete, score a reference clip on the quality page — and times the
/// first page of a 10,000-record library. Screenshots (1280 px and 390 px, light and dark) are saved under
/// `.build/artifacts/console/`.
@Suite(.serialized, .exclusive("speech decoding")) struct ConsoleBrowserTests {
    static let password = "correct horse battery staple"
    static let script = TestEnvironment.repository.appendingPathComponent(
        "Tests/EarshotConsoleTests/Browser/console_browser.py")
    static let python = TestEnvironment.home.appendingPathComponent("venv/bin/python")
    static let jfkSaid = "And so my fellow Americans, ask not what your country can do for you,\n"
        + "ask what you can do for your country.\n"
    static let artifacts = TestEnvironment.repository.appendingPathComponent(".build/artifacts/console")

    /// The spoken dialogue: two espeak-ng voices taking turns, so diarization finds two speakers.
    static let turns = Array(SpeechSynthesis.supportCallLines.prefix(4)).enumerated().map {
        (voice: SpeechSynthesis.voices[$0.offset % 2], text: $0.element)
    }

    @Test(.timeLimit(.minutes(20))) func aPersonUsesTheConsoleFromSignUpToDelete() async throws {
        let missing = ["/usr/bin/chromium", "/usr/bin/chromedriver", Self.python.path].filter {
            !FileManager.default.isExecutableFile(atPath: $0)
        }
        guard missing.isEmpty, SpeechSynthesis.available,
            TestEnvironment.exist(TestEnvironment.asrFastModel, TestEnvironment.jfk)
        else {
            Issue.record("missing \(missing) or espeak-ng or the asr-fast model: run scripts/setup")
            return
        }
        let directory = try TestEnvironment.makeTemporaryDirectory("console")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A fresh set of this journey's artifacts (the admin journey's, `admin-*` and `devices-*`, are its own).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: Self.artifacts.path)) ?? []
        where !name.hasPrefix("admin-") && !name.hasPrefix("devices-") {
            try? FileManager.default.removeItem(at: Self.artifacts.appendingPathComponent(name))
        }
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)

        // Bob: a second account of the same tenant, with a library of 10,000 records.
        let created = try await Program.earshot.run(
            ["accounts", "create", "bob@example.com", "--nickname", "Bob", "--data-dir", directory.path],
            input: Data((Self.password + "\n").utf8))
        let bob = try #require(
            created.stdout.split(separator: "\n").first { $0.hasPrefix("account_id: ") }.map {
                String($0.dropFirst("account_id: ".count))
            }, "\(created)")
        try await Self.seed(10_000, for: bob, database: directory.appendingPathComponent("earshot.sqlite"))

        let audio = directory.appendingPathComponent("support-call.wav")
        try SpeechSynthesis.dialogue(Self.turns).wav.write(to: audio)
        let codeFile = directory.appendingPathComponent("code")
        // The quality page's reference clip: JFK and what he said, paired by name.
        let clip = directory.appendingPathComponent("jfk.wav"), reference = directory.appendingPathComponent("jfk.txt")
        try FileManager.default.copyItem(at: TestEnvironment.jfk, to: clip)
        try Data(Self.jfkSaid.utf8).write(to: reference)

        // Extractive summaries: the summary step needs no language model (docs/notes.md). Small parts: the speech
        // upload has several, so an interrupted one can resume.
        let server = try await ServeProcess.start(
            dataDirectory: directory.path,
            arguments: ["--summary-method", "extractive", "--upload-chunk-size", "256KiB"])
        defer { server.stop() }
        let browser = try Program(Self.python).start([
            Self.script.path, "--base", server.base, "--code-file", codeFile.path, "--audio", audio.path,
            "--reference-audio", clip.path, "--reference-text", reference.path, "--artifacts", Self.artifacts.path, "--email", "ada@example.com", "--other-email", "bob@example.com",
            "--search", "headphones",
        ])
        defer { _ = browser.stop() }

        // The code the sign-up sent, from the server's log channel, handed to the browser.
        _ = try await browser.waitForLine(containing: "\"need_code\"", on: .stdout, timeout: .seconds(180))
        let line = try await server.child.waitForLine(containing: "verification code is", timeout: .seconds(60))
        let code = try #require(line.firstMatch(of: /code is ([0-9]{6})/)?.1, "no code in: \(line)")
        try Data(code.utf8).write(to: codeFile)

        let result = try await browser.waitForExit(timeout: .seconds(900))
        try Data(result.stdoutData).write(to: Self.artifacts.appendingPathComponent("steps.jsonl"))
        let steps = Self.steps(result.stdout)
        #expect(
            result.status == 0 && steps["done"] != nil,
            "\(result)\n--- steps ---\n\(result.stdout)\n--- server ---\n\(server.diagnostics)")

        // What the user saw, in numbers.
        if let seek = steps["click the third sentence"] {
            let target = try #require(seek["target"] as? Double), now = try #require(seek["current_time"] as? Double)
            #expect(now >= target - 0.05 && now < target + 1.5, "currentTime \(now) for a sentence at \(target) s")
        }
        if let wave = steps["waveform"] { #expect((wave["buckets"] as? Int ?? 0) > 100) }
        if let timing = steps["first page of a large library"] {
            let times = try #require(timing["render_ms"] as? [Double]).sorted()
            #expect(timing["rows"] as? Int == 50)
            #expect(times[times.count / 2] < 300, "first page of 10,000 records rendered in \(times) ms")
        }
        let shots = try FileManager.default.contentsOfDirectory(atPath: Self.artifacts.path).filter {
            $0.hasSuffix(".png")
        }
        for page in ["sign-in", "record", "library", "quality"] {
            for variant in ["1280-light", "1280-dark", "390-light", "390-dark"] {
                #expect(shots.contains("\(page)-\(variant).png"), "no screenshot \(page)-\(variant)")
            }
        }
    }

    /// The instance owner's Admin page and the Devices page (`Browser/console_admin_browser.py`): health at a glance,
    /// a partner created (its secret shown once and working), a webhook delivered to the script's receiver and
    /// redelivered, the secret rotated with an overlap, the partner disabled and enabled, its webhook secret; a device
    /// registered through the API as an app binds one, shown with its state, renamed, moved between homes, the
    /// user's device defaults saved, its recording named by the device in the library, removed; a member refused.
    /// HTML in a partner's and a device's name stays text. No speech is decoded (no workers: the task waits until
    /// revoked, the device's recording is not transcribed).
    @Test(.timeLimit(.minutes(10))) func theOwnerAdministersTheInstanceAndDevicesAreManaged() async throws {
        let missing = ["/usr/bin/chromium", "/usr/bin/chromedriver", Self.python.path].filter {
            !FileManager.default.isExecutableFile(atPath: $0)
        }
        guard missing.isEmpty else {
            Issue.record("missing \(missing): run scripts/setup")
            return
        }
        let directory = try TestEnvironment.makeTemporaryDirectory("console-admin")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        for (email, owner) in [("owner@example.com", true), ("member@example.com", false)] {
            let created = try await Program.earshot.run(
                ["accounts", "create", email, "--data-dir", directory.path] + (owner ? ["--owner"] : []),
                input: Data((Self.password + "\n").utf8))
            try #require(created.status == 0, "\(created)")
        }
        let listed = try await Program.earshot.run(["accounts", "list", "--data-dir", directory.path])
        #expect(listed.stdout.split(separator: "\n").filter { $0.hasSuffix("  owner") }.count == 1, "\(listed)")

        let server = try await ServeProcess.start(
            dataDirectory: directory.path, arguments: ["--workers", "0", "--webhook-allow-networks", "127.0.0.0/8"])
        defer { server.stop() }
        let result = try await Program(Self.python).run(
            [
                Self.script.deletingLastPathComponent().appendingPathComponent("console_admin_browser.py").path,
                "--base", server.base, "--artifacts", Self.artifacts.path, "--owner-email", "owner@example.com",
                "--member-email", "member@example.com",
            ], timeout: .seconds(420))
        try Data(result.stdoutData).write(to: Self.artifacts.appendingPathComponent("admin-steps.jsonl"))
        let steps = Self.steps(result.stdout)
        #expect(
            result.status == 0 && steps["done"] != nil,
            "\(result)\n--- steps ---\n\(result.stdout)\n--- server ---\n\(server.diagnostics)")
        #expect(steps["a webhook delivery and its redelivery"]?["deliveries"] as? Int == 2)
        let shots = try FileManager.default.contentsOfDirectory(atPath: Self.artifacts.path).filter {
            $0.hasSuffix(".png")
        }
        for page in ["admin", "devices"] {
            for variant in ["1280-light", "1280-dark", "390-light", "390-dark"] {
                #expect(shots.contains("\(page)-\(variant).png"), "no screenshot \(page)-\(variant)")
            }
        }
    }

    /// The Live page (`Browser/console_live_browser.py`): Chromium's fake microphone plays JFK's clip once; the
    /// page mints a client secret with the session cookie, streams PCM16 from its AudioWorklet over the WebSocket,
    /// shows the clip's words as final lines with their times, and after Stop links the record the session became,
    /// whose transcript has the same words. No Content-Security-Policy violation on the way.
    @Test(.timeLimit(.minutes(10))) func aPersonSpeaksOnTheLivePageAndKeepsTheRecord() async throws {
        let missing = ["/usr/bin/chromium", "/usr/bin/chromedriver", Self.python.path].filter {
            !FileManager.default.isExecutableFile(atPath: $0)
        }
        guard missing.isEmpty, TestEnvironment.exist(TestEnvironment.asrFastModel, TestEnvironment.jfk) else {
            Issue.record("missing \(missing) or the asr-fast model: run scripts/setup")
            return
        }
        let directory = try TestEnvironment.makeTemporaryDirectory("console-live")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Chromium's fake capture reads a WAV file; one second of silence first, so the page is listening.
        let speech = directory.appendingPathComponent("speech.wav")
        try FFmpeg.convert(
            TestEnvironment.jfk, to: speech, ["-af", "adelay=1000:all=1,apad=pad_dur=2", "-ar", "48000", "-ac", "1"])
        let steps = try await Self.speak(speech, through: "console_live_browser", in: directory)
        if let spoken = steps["speak"]?["finals"] as? [String] {
            let normalizer = TextNormalizer(configuration: .defaults(for: .english))
            let wer = PairsBenchmark.score([
                (normalizer.normalize(Self.jfkSaid), normalizer.normalize(spoken.joined(separator: " ")))
            ]).errorRate
            #expect(wer <= 0.15, "the live lines \(spoken) against what JFK said (WER \(wer))")
        }
    }

    /// The Conversation page (`Browser/console_conversation_browser.py`): side A English, side B Spanish; Chromium's
    /// fake microphone plays a Spanish sentence spoken by espeak-ng once, after a tap on side B. The page shows the
    /// Spanish words on side B (one line, or several when the turn was cut at its pause) with their English
    /// translation, schedules every sample of each translation spoken to side A (as many as the server's
    /// `audio_ms`), and after End links the record, whose transcript has the words.
    @Test(.timeLimit(.minutes(10))) func twoPeopleConverseOnTheConversationPage() async throws {
        let missing = ["/usr/bin/chromium", "/usr/bin/chromedriver", Self.python.path].filter {
            !FileManager.default.isExecutableFile(atPath: $0)
        }
        guard missing.isEmpty, SpeechSynthesis.available, TestEnvironment.exist(TestEnvironment.asrFastModel) else {
            Issue.record("missing \(missing), espeak-ng or the asr-fast model: run scripts/setup")
            return
        }
        let directory = try TestEnvironment.makeTemporaryDirectory("console-conversation")
        defer { try? FileManager.default.removeItem(at: directory) }
        let spoken = directory.appendingPathComponent("spanish.wav")
        try SpeechSynthesis.speak(SpeechSynthesis.spanishLine, voice: "es", speed: 130, to: spoken)
        let speech = directory.appendingPathComponent("speech.wav")
        try FFmpeg.convert(spoken, to: speech, ["-af", "adelay=1000:all=1,apad=pad_dur=3", "-ar", "48000", "-ac", "1"])
        let steps = try await Self.speak(speech, through: "console_conversation_browser", in: directory)
        // The page, not the translation's quality, is under test here (LiveDialogueTests scores that): the words
        // that carry the sentence must come through.
        if let translation = steps["side B speaks Spanish"]?["translation"] as? String {
            #expect(
                ["hospital", "barcelona"].allSatisfy { translation.lowercased().contains($0) },
                "the translation \(translation) against \(SpeechSynthesis.spanishLineInEnglish)")
        }
    }

    /// Runs `Browser/<script>.py` with Chromium's fake microphone playing `speech`, against a new `earshot serve` in
    /// `directory` with one account (ada@example.com); expects it to finish and returns its steps. Its output is
    /// kept as `<script>-steps.jsonl` under the artifacts.
    static func speak(_ speech: URL, through script: String, in directory: URL) async throws -> [String: [String: Any]]
    {
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let created = try await Program.earshot.run(
            ["accounts", "create", "ada@example.com", "--data-dir", directory.path],
            input: Data((password + "\n").utf8))
        try #require(created.status == 0, "\(created)")
        let server = try await ServeProcess.start(dataDirectory: directory.path, arguments: [])
        defer { server.stop() }
        let result = try await Program(python).run(
            [
                self.script.deletingLastPathComponent().appendingPathComponent(script + ".py").path,
                "--base", server.base, "--artifacts", artifacts.path, "--email", "ada@example.com",
                "--speech", speech.path,
            ], timeout: .seconds(420))
        try Data(result.stdoutData).write(to: artifacts.appendingPathComponent(script + "-steps.jsonl"))
        let steps = Self.steps(result.stdout)
        #expect(
            result.status == 0 && steps["done"] != nil,
            "\(result)\n--- steps ---\n\(result.stdout)\n--- server ---\n\(server.diagnostics)")
        return steps
    }

    /// The script's JSON lines by step (`done` for the last line).
    static func steps(_ output: String) -> [String: [String: Any]] {
        var steps: [String: [String: Any]] = [:]
        for line in output.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                continue
            }
            if object["done"] != nil { steps["done"] = object }
            if let step = object["step"] as? String { steps[step, default: [:]].merge(object) { $1 } }
        }
        return steps
    }

    /// Inserts `count` records of `user` (a minute apart, newest last) into the server's database, as the records
    /// benchmark does: the list reads only these columns.
    static func seed(_ count: Int, for user: String, database: URL) async throws {
        let store = try await SQLiteMetadataStore(
            configuration: .init(location: .file(database), schema: ServerSchema.components))
        try await store.write { db in
            for index in 0..<count {
                let id = String(format: "rec_seed%016d", index)  // a valid id: 20 characters of the id alphabet
                try db.execute(
                    "INSERT INTO records (id, partner_id, user_id, file_id, title, tags, record_time, duration_ms, "
                        + "source, created_at, updated_at) "
                        + "VALUES (?, 'ptn_00000000000000000000', ?, ?, ?, '[\"seeded\"]', ?, 61000, 'import', 0, 0)",
                    [
                        .text(id), .text(user), .text("file_" + id), .text("Seeded recording \(index)"),
                        .integer(1_700_000_000_000 + Int64(index) * 60_000),
                    ])
            }
        }
        await store.close()
    }
}
