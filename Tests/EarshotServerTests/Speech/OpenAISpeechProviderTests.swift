import EarshotAPI
import EarshotServerTestSupport
import EarshotTestSupport
import EarshotVoice
import Foundation
import Testing

@testable import EarshotServer

/// `OpenAISpeechSynthesizer`, the client of any OpenAI-compatible `/v1/audio/speech`, against Earshot's own (a real
/// server on 127.0.0.1), and an Earshot whose `speech-provider` is another Earshot.
@Suite(.serialized, .enabled(if: SpeechSynthesis.available, "needs espeak-ng (make setup)"))
struct OpenAISpeechProviderTests {
    static let sentence = "The quick brown fox jumps over the lazy dog near the river bank."

    @Test func theClientGetsTheServersSpeechAsPCMOrWAV() async throws {
        try await TestPlatform.with { platform in
            let token = try await platform.partnerToken(try await platform.createPartner())
            let base = URL(string: platform.base.absoluteString + "/v1")!
            let direct = try await platform.send(
                "POST", APIPath.openAISpeech, token: token,
                json: ["model": "tts-1", "input": Self.sentence, "voice": "fable", "response_format": "pcm"])
            try #require(direct.status == 200, "\(direct.text)")

            for format in [OpenAISpeechSynthesizer.Configuration.Format.pcm, .wav] {
                let client = OpenAISpeechSynthesizer(
                    configuration: .init(baseURL: base, apiKey: token, model: "tts-1", format: format))
                let speech = try await client.synthesize(SpeechRequest(text: Self.sentence, voice: "fable"))
                #expect(speech.sampleRate == 24_000, "\(format)")
                #expect(PCM16.bytes(speech.samples) == direct.data, "\(format): the server's samples, unchanged")
            }
        }
    }

    @Test func providerFailuresAreClearErrors() async throws {
        try await TestPlatform.with { platform in
            let base = URL(string: platform.base.absoluteString + "/v1")!
            let forged = OpenAISpeechSynthesizer(configuration: .init(baseURL: base, apiKey: "not-a-token"))
            let refused = await #expect(throws: VoiceError.self) {
                try await forged.synthesize(SpeechRequest(text: "Hello."))
            }
            #expect(refused?.code == .providerError)
            #expect(refused?.message.contains("HTTP 401") == true, "\(refused?.message ?? "")")

            let token = try await platform.partnerToken(try await platform.createPartner())
            let client = OpenAISpeechSynthesizer(configuration: .init(baseURL: base, apiKey: token))
            let voice = await #expect(throws: VoiceError.self) {
                try await client.synthesize(SpeechRequest(text: "Hello.", voice: "darth"))
            }
            #expect(voice?.code == .providerError)
            #expect(voice?.message.contains("HTTP 400") == true && voice?.message.contains("darth") == true)
            let empty = await #expect(throws: VoiceError.self) { try await client.synthesize(SpeechRequest(text: "")) }
            #expect(empty?.code == .invalidInput, "checked before any request")
        }
        // Nothing listens on port 1.
        let nowhere = OpenAISpeechSynthesizer(configuration: .init(baseURL: URL(string: "http://127.0.0.1:1/v1")!))
        let unreachable = await #expect(throws: VoiceError.self) {
            try await nowhere.synthesize(SpeechRequest(text: "Hello."))
        }
        #expect(unreachable?.code == .unavailable)
    }

    static var shimmerBody: [String: Any] { ["model": "tts-1", "input": sentence, "voice": "shimmer"] }

    @Test func anEarshotCanSpeakThroughAnotherOne() async throws {
        try await TestPlatform.with { upstream in
            let upstreamToken = try await upstream.partnerToken(try await upstream.createPartner())
            let original = try await upstream.send(
                "POST", APIPath.openAISpeech, token: upstreamToken, json: Self.shimmerBody)
            try #require(original.status == 200, "\(original.text)")
            try await TestPlatform.with(
                serialized: false,
                {
                    $0.speechProvider = upstream.base.absoluteString + "/v1"
                    $0.speechAPIKey = upstreamToken
                    // Proves espeak-ng is not used here.
                    $0.speechEspeakPath = "/nonexistent/espeak-ng"
                }
            ) { relay in
                let token = try await relay.partnerToken(try await relay.createPartner())
                let relayed = try await relay.send("POST", APIPath.openAISpeech, token: token, json: Self.shimmerBody)
                #expect(relayed.status == 200, "\(relayed.text)")
                #expect(relayed.data == original.data, "the same WAV, through the provider")
            }
        }
    }
}
