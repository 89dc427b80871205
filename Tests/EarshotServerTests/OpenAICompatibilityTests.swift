import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The OpenAI-compatible endpoints with the unmodified `openai` Python package (installed into
/// `$EARSHOT_HOME/venv` by the test when missing) and with hand-built multipart requests.
@Suite(.serialized, .enabled(if: TestAudio.modelsInstalled, "speech models not installed (run `make models`)"))
struct OpenAICompatibilityTests {
    /// `$EARSHOT_HOME/venv/bin/python` with `openai` importable, creating the venv if needed; nil if impossible.
    static func python() async throws -> String? {
        let venv = TestAudio.home + "/venv"
        let python = venv + "/bin/python"
        if try await succeeds(python, ["-c", "import openai"]) { return python }
        if !FileManager.default.fileExists(atPath: python) {
            guard try await succeeds("/usr/bin/python3", ["-m", "venv", venv]) else { return nil }
        }
        guard try await succeeds(python, ["-m", "pip", "install", "-q", "openai"]) else { return nil }
        return try await succeeds(python, ["-c", "import openai"]) ? python : nil
    }

    /// True when `executable` exists and exits with status 0.
    static func succeeds(_ executable: String, _ arguments: [String]) async throws -> Bool {
        guard FileManager.default.isExecutableFile(atPath: executable) else { return false }
        return try await Program(URL(fileURLWithPath: executable)).run(arguments, timeout: .seconds(600)).status == 0
    }

    static let script = #"""
        import json, os, sys
        import openai
        from openai import OpenAI
        client = OpenAI(base_url=os.environ["BASE"] + "/v1", api_key=os.environ["TOKEN"])
        audio = os.environ["AUDIO"]
        out = {}
        with open(audio, "rb") as f:
            r = client.audio.transcriptions.create(model="whisper-1", file=f)
            out["json"] = r.text
        with open(audio, "rb") as f:
            r = client.audio.transcriptions.create(
                model="whisper-1", file=f, response_format="verbose_json", language="en",
                timestamp_granularities=["word", "segment"], temperature=0, prompt="JFK inaugural address.")
            out["verbose"] = {"language": r.language, "duration": r.duration, "text": r.text,
                              "segments": [[s.start, s.end, s.text] for s in r.segments],
                              "words": [[w.word, w.start, w.end] for w in (r.words or [])]}
        with open(audio, "rb") as f:
            out["text"] = client.audio.transcriptions.create(model="asr-fast", file=f, response_format="text")
        with open(audio, "rb") as f:
            out["srt"] = client.audio.transcriptions.create(model="whisper-1", file=f, response_format="srt")
        with open(audio, "rb") as f:
            out["vtt"] = client.audio.transcriptions.create(model="whisper-1", file=f, response_format="vtt")
        with open(audio, "rb") as f:
            out["translation"] = client.audio.translations.create(model="whisper-1", file=f).text
        bad = OpenAI(base_url=os.environ["BASE"] + "/v1", api_key="not-a-token")
        try:
            with open(audio, "rb") as f:
                bad.audio.transcriptions.create(model="whisper-1", file=f)
        except openai.AuthenticationError as e:
            out["bad_key"] = e.status_code
        user = OpenAI(base_url=os.environ["BASE"] + "/v1", api_key=os.environ["USER_TOKEN"])
        try:
            with open(audio, "rb") as f:
                user.audio.transcriptions.create(model="whisper-1", file=f)
        except openai.PermissionDeniedError as e:
            out["user_token"] = e.status_code
        try:
            with open(audio, "rb") as f:
                client.audio.transcriptions.create(model="gpt-9", file=f)
        except openai.BadRequestError as e:
            out["bad_model"] = [e.status_code, e.message]
        print(json.dumps(out))
        """#

    @Test func theOpenAIPythonClientRoundTrips() async throws {
        guard let python = try await Self.python() else {
            Issue.record("skipped: could not create \(TestAudio.home)/venv with the openai package (no network?)")
            return
        }
        try await TestPlatform.with { platform in
            let (_, partnerToken, userToken) = try await platform.newUser()
            let script = platform.directory.appendingPathComponent("client.py")
            try Data(Self.script.utf8).write(to: script)
            let result = try await Program(URL(fileURLWithPath: python)).run(
                [script.path],
                environment: [
                    "BASE": platform.base.absoluteString, "TOKEN": partnerToken, "USER_TOKEN": userToken,
                    "AUDIO": TestAudio.home + "/testdata/jfk.wav",
                ], timeout: .seconds(600))
            try #require(result.status == 0, "\(result)")
            let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let phrase = "ask not what your country can do for you"
            #expect((out["json"] as? String)?.lowercased().contains(phrase) == true)
            #expect((out["text"] as? String)?.lowercased().contains(phrase) == true)
            let verbose = try #require(out["verbose"] as? [String: Any])
            #expect(verbose["language"] as? String == "en")
            #expect(abs((verbose["duration"] as? Double ?? 0) - 11.0) < 0.2)
            let segments = try #require(verbose["segments"] as? [[Any]])
            #expect(!segments.isEmpty)
            #expect(segments.allSatisfy { ($0[0] as? Double ?? -1) < ($0[1] as? Double ?? -1) })
            let words = try #require(verbose["words"] as? [[Any]])
            #expect(words.count > 15)
            #expect((out["srt"] as? String)?.hasPrefix("1\n00:00:00,") == true)
            #expect((out["vtt"] as? String)?.hasPrefix("WEBVTT") == true)
            #expect((out["translation"] as? String)?.lowercased().contains("country") == true)
            #expect(out["bad_key"] as? Int == 401)
            #expect(out["user_token"] as? Int == 403)
            #expect((out["bad_model"] as? [Any])?.first as? Int == 400)
        }
    }

    @Test func malformedFormsGetClearErrors() async throws {
        try await TestPlatform.with({ $0.openAIMaxFileSize = 64 << 10 }) { platform in
            let (_, token, _) = try await platform.newUser()
            func post(_ fields: [(String, String?, Data)], contentType: String? = nil) async throws
                -> TestPlatform.HTTPResult
            {
                try await platform.postForm(fields, token: token, contentType: contentType)
            }
            let noFile = try await post([("model", nil, Data("whisper-1".utf8))])
            #expect(noFile.status == 400)
            #expect(noFile.errorMessage.contains("`file`"))
            let notAudio = try await post([("model", nil, Data("whisper-1".utf8)), ("file", "x.wav", testContent(500))])
            #expect(notAudio.status == 400)
            #expect(notAudio.errorMessage.contains("could not be decoded"))
            let format = try await post([
                ("model", nil, Data("whisper-1".utf8)), ("response_format", nil, Data("xml".utf8)),
                ("file", "x.wav", testContent(10)),
            ])
            #expect(format.status == 400)
            #expect(format.errorMessage.contains("response_format"))
            let json = try await platform.send(
                "POST", APIPath.openAITranscriptions, token: token, json: ["model": "whisper-1"])
            #expect(json.status == 400)
            #expect(json.errorMessage.contains("multipart/form-data"))
            let tooBig = try await post([
                ("model", nil, Data("whisper-1".utf8)), ("file", "x.wav", testContent(200_000)),
            ])
            #expect(tooBig.status == 413)
            let anonymous = try await platform.send("POST", APIPath.openAITranscriptions, body: Data())
            #expect(anonymous.status == 401)
            // Spool files are removed.
            let spool = platform.configuration.resolvedBlobDirectory + "/.tmp"
            let left = (try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []
            #expect(left.filter { $0.hasPrefix("openai_") }.isEmpty)
        }
    }
}
