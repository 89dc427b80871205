import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// `model-home` moves every model the server loads: a server started on an empty home looks there for each kind.
@Suite(.enabled(if: TestAudio.modelsInstalled, "speech models not installed (run `make models`)"))
struct ServerModelHomeTests {
    @Test func modelHomeMovesTheWhisperVADSpeakerAndLanguageModels() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-home-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home + "/models", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        @Sendable func install(_ name: String) throws {
            try FileManager.default.createSymbolicLink(
                atPath: home + "/models/" + name, withDestinationPath: TestAudio.home + "/models/" + name)
        }
        try await TestPlatform.with({ $0.modelHome = home }) { platform in
            let (_, token, user) = try await platform.newUser()
            let jfk = try TestAudio.jfk()

            // Whisper: the process's home has base q8_0, this one does not yet.
            let noWhisper = try await platform.transcribe(jfk, model: "whisper-1", token: token)
            #expect(noWhisper.status == 503)
            #expect(noWhisper.errorMessage.contains(home + "/models/ggml-base-q8_0.bin"))

            // Silero VAD: with the whisper model here, decoding still needs this home's VAD model.
            try install("ggml-base-q8_0.bin")
            #expect(try await platform.transcribe(jfk, model: "whisper-1", token: token).status == 500)
            try install("silero-v6.2.0-ggml.bin")
            let transcribed = try await platform.transcribe(jfk, model: "whisper-1", token: token)
            #expect(transcribed.status == 200, "\(transcribed.text)")

            // Speaker embeddings: enrolling a voice loads this home's weights.
            let sample = try await platform.upload(jfk, token: user)
            let enrol = try await platform.send(
                "POST", APIPath.voiceprints, token: user, json: ["name": "Me", "file_id": sample.fileID])
            #expect(enrol.status == 503)
            #expect(enrol.errorMessage.contains(home + "/models/resemblyzer-0.1.4.eswt"))

            // The managed language model: llama-server and its GGUF file under this home.
            let managed = try #require(platform.configuration.makeNotes().managed)
            #expect(managed.configuration.executable == home + "/llama/bin/llama-server")
            #expect(managed.configuration.model == home + "/models/SmolLM2-135M-Instruct.Q4_1.gguf")
        }
    }
}

extension TestPlatform {
    /// `POST /v1/audio/transcriptions` with `audio` as `file` and `model`, as an OpenAI client sends it.
    func transcribe(_ audio: Data, model: String, token: String, filename: String = "a.wav") async throws
        -> HTTPResult
    {
        let boundary = "b-\(UUID().uuidString)"
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\n\(model)\r\n".utf8)
        body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(filename)\"\r\n\r\n".utf8)
        body += audio + Data("\r\n--\(boundary)--\r\n".utf8)
        return try await send(
            "POST", APIPath.openAITranscriptions, token: token, body: body,
            headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"])
    }
}
