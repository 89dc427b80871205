import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The official `openai` Python SDK (pinned, installed into `$EARSHOT_HOME/venv` by `scripts/setup`), unmodified,
/// against `earshot serve`: `Tests/OpenAISDK/test_openai_sdk.py` covers transcriptions in every response format,
/// streaming (`stream=True`), `include=["logprobs"]`, `diarized_json` with known speakers, chunking strategies,
/// `models.list()`, translations, the 400s of parameters Earshot does not offer, and speech synthesis
/// (`audio.speech.create` in wav, pcm and opus, a streamed response transcribed back, its refusals).
@Suite(.serialized, .exclusive("speech decoding"), .timeLimit(.minutes(30)))
struct OpenAISDKTests {
    static let python = TestEnvironment.home.appendingPathComponent("venv/bin/python")
    static let ready = TestEnvironment.exist(
        python, TestEnvironment.jfk, TestEnvironment.asrFastModel, TestEnvironment.speakerWeights)
        && SpeechSynthesis.available

    @Test(.enabled(if: ready, "needs make setup (the venv with openai, models, Resemblyzer weights) and espeak-ng"))
    func theOfficialSDKSuitePasses() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("openai-sdk")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Two voices taking turns, and a sample of the first voice as a known speaker.
        let (agent, caller) = (SpeechSynthesis.voices[0], SpeechSynthesis.voices[1])
        let dialogue = directory.appendingPathComponent("dialogue.wav")
        try SpeechSynthesis.dialogue(
            SpeechSynthesis.dialogueLines.enumerated().map { ($0.offset % 2 == 0 ? agent : caller, $0.element) }
        ).wav.write(to: dialogue)
        let enrolment = directory.appendingPathComponent("agent.wav")
        try SpeechSynthesis.dialogue(SpeechSynthesis.enrolmentLines.map { (agent, $0) }).wav.write(to: enrolment)

        let server = try await ServeProcess.start(dataDirectory: directory.appendingPathComponent("data").path)
        defer { server.stop() }
        let token = try await server.partnerToken()
        let userToken = try await Self.userToken(base: server.base, partnerToken: token)
        let suite = TestEnvironment.repository.appendingPathComponent("Tests/OpenAISDK/test_openai_sdk.py")
        let result = try await Program(Self.python).run(
            ["-m", "unittest", "-v", suite.path],
            environment: [
                "BASE": server.base, "TOKEN": token, "USER_TOKEN": userToken, "SPEECH": TestEnvironment.jfk.path,
                "DIALOGUE": dialogue.path, "ENROLMENT": enrolment.path, "SCRATCH": directory.path,
                "PYTHONDONTWRITEBYTECODE": "1",
            ], timeout: .seconds(1500))
        // unittest reports on stderr; "OK" only when every test passed.
        #expect(result.status == 0, "\(result.stderr)\n\(server.diagnostics)")
        #expect(result.stderr.contains("\nOK"), "\(result.stderr)")
        let ran = result.stderr.split(separator: "\n").first { $0.hasPrefix("Ran ") }
        #expect(ran.map { Int($0.split(separator: " ")[1]) ?? 0 } ?? 0 >= 17, "\(ran ?? "")")
    }

    static func userToken(base: String, partnerToken: String) async throws -> String {
        var request = URLRequest(url: URL(string: base + "/open/partner/user-token")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(partnerToken)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(#"{"user_id": "sdk-user"}"#.utf8)
        let (body, _) = try await URLSession.shared.data(for: request)
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        return try #require(object?["access_token"] as? String, "\(String(decoding: body, as: UTF8.self))")
    }
}
