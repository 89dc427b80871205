import EarshotAPI
import EarshotAudio
import EarshotServerTestSupport
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotServer

/// `POST /v1/audio/speech` with espeak-ng behind it: every format a client can ask for, and every bad request a
/// clear error.
@Suite(.serialized, .enabled(if: SpeechSynthesis.available, "needs espeak-ng (make setup)"))
struct OpenAISpeechTests {
    static let sentence = "Our meeting has been moved to Thursday at half past two in the small conference room."

    /// 16-bit little-endian integers of a WAV header.
    static func u16(_ data: Data, _ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
    static func u32(_ data: Data, _ at: Int) -> Int { u16(data, at) | u16(data, at + 2) << 16 }

    static func speak(
        _ platform: TestPlatform, token: String?, _ body: [String: Any]
    ) async throws -> TestPlatform.HTTPResult {
        try await platform.send("POST", APIPath.openAISpeech, token: token, json: body)
    }

    @Test func wavPCMAndOpusCarryTheSameSpeechAt24kHz() async throws {
        try await TestPlatform.with { platform in
            let token = try await platform.partnerToken(try await platform.createPartner())
            let body: [String: Any] = ["model": "tts-1", "input": Self.sentence, "voice": "alloy"]

            let wav = try await Self.speak(platform, token: token, body.merging(["response_format": "wav"]) { $1 })
            try #require(wav.status == 200, "\(wav.text)")
            #expect(wav.header("Content-Type") == "audio/wav")
            let data = wav.data
            #expect(data.prefix(4) == Data("RIFF".utf8) && data[8..<16] == Data("WAVEfmt ".utf8))
            #expect(Self.u32(data, 4) == data.count - 8, "RIFF size")
            #expect(Self.u16(data, 20) == 1 && Self.u16(data, 22) == 1, "PCM, mono")
            #expect(Self.u32(data, 24) == 24_000 && Self.u16(data, 34) == 16, "24 kHz, 16-bit")
            #expect(data[36..<40] == Data("data".utf8) && Self.u32(data, 40) == data.count - 44, "data size")
            let seconds = Double(data.count - 44) / 48_000
            // 15 words at espeak-ng's 175 words per minute: about 5 s.
            #expect((3.0...9.0).contains(seconds), "\(seconds) s")

            let pcm = try await Self.speak(platform, token: token, body.merging(["response_format": "pcm"]) { $1 })
            try #require(pcm.status == 200, "\(pcm.text)")
            #expect(pcm.header("Content-Type") == "audio/pcm")
            #expect(pcm.data.count % 2 == 0)
            #expect(pcm.data == data.dropFirst(44), "the same samples, bare")

            let opus = try await Self.speak(platform, token: token, body.merging(["response_format": "opus"]) { $1 })
            try #require(opus.status == 200, "\(opus.text)")
            #expect(opus.header("Content-Type") == "audio/ogg; codecs=opus")
            #expect(opus.data.prefix(4) == Data("OggS".utf8))
            #expect(opus.data.count < pcm.data.count / 5, "compressed: \(opus.data.count) of \(pcm.data.count)")
            let file = platform.directory.appendingPathComponent("speech.ogg")
            try opus.data.write(to: file)
            let decoded = try await AudioDecoder(contentsOf: file).decodeAll()
            let decodedSeconds = Double(decoded.count) / 16_000
            #expect(abs(decodedSeconds - seconds) < 0.05, "Ogg Opus decodes to \(decodedSeconds) s of \(seconds) s")
            let energy = decoded.reduce(0) { $0 + $1 * $1 } / Float(max(decoded.count, 1))
            #expect(energy > 1e-4, "the decoded audio is speech, not silence")
        }
    }

    @Test(arguments: ["mp3", "aac", "flac"])
    func ffmpegFormatsDecodeToTheSameSpeech(format: String) async throws {
        try await TestPlatform.with { platform in
            let token = try await platform.partnerToken(try await platform.createPartner())
            let body: [String: Any] = ["model": "tts-1", "input": Self.sentence, "voice": "sage"]
            let pcm = try await Self.speak(platform, token: token, body.merging(["response_format": "pcm"]) { $1 })
            let encoded = try await Self.speak(platform, token: token, body.merging(["response_format": format]) { $1 })
            try #require(encoded.status == 200, "\(encoded.text)")
            let types = ["mp3": "audio/mpeg", "aac": "audio/aac", "flac": "audio/flac"]
            #expect(encoded.header("Content-Type") == types[format])
            let file = platform.directory.appendingPathComponent("speech.\(format)")
            try encoded.data.write(to: file)
            let decoder = try AudioDecoder(contentsOf: file)
            #expect(decoder.info.codec == format, "\(decoder.info.codec)")
            let decoded = try await decoder.decodeAll()
            let seconds = Double(pcm.data.count) / 48_000
            let decodedSeconds = Double(decoded.count) / 16_000
            #expect(abs(decodedSeconds - seconds) < 0.1, "\(format) decodes to \(decodedSeconds) s of \(seconds) s")
        }
    }

    @Test func everyOpenAIVoiceAndModelIsAcceptedAndSpeedChangesThePace() async throws {
        try await TestPlatform.with { platform in
            let token = try await platform.partnerToken(try await platform.createPartner())
            var sizes: Set<Int> = []
            for voice in [
                "alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova", "sage", "shimmer", "verse",
            ] {
                let result = try await Self.speak(
                    platform, token: token,
                    [
                        "model": "gpt-4o-mini-tts", "input": "Good morning.", "voice": voice, "response_format": "pcm",
                        "instructions": "Speak calmly.",
                    ])
                #expect(result.status == 200, "\(voice): \(result.text)")
                sizes.insert(result.data.count)
            }
            #expect(sizes.count >= 6, "distinct voices speak at distinct lengths: \(sizes)")
            for model in ["tts-1", "tts-1-hd"] {
                let result = try await Self.speak(
                    platform, token: token, ["model": model, "input": "Hello.", "voice": "nova", "speed": 1.0])
                #expect(result.status == 200, "\(model): \(result.text)")
            }
            let normal = try await Self.speak(
                platform, token: token,
                ["model": "tts-1", "input": Self.sentence, "voice": "echo", "response_format": "pcm"])
            let fast = try await Self.speak(
                platform, token: token,
                ["model": "tts-1", "input": Self.sentence, "voice": "echo", "response_format": "pcm", "speed": 2])
            #expect(Double(fast.data.count) < 0.7 * Double(normal.data.count))
            // Earshot's language field: French is spoken as French.
            let french = try await Self.speak(
                platform, token: token,
                [
                    "model": "tts-1", "input": "Bonjour à tous, la réunion est reportée.", "voice": "coral",
                    "language": "fr",
                ])
            #expect(french.status == 200, "\(french.text)")
        }
    }

    @Test func badRequestsAreClearErrors() async throws {
        try await TestPlatform.with { platform in
            let (_, token, userToken) = try await platform.newUser()
            let good: [String: Any] = ["model": "tts-1", "input": "Hello there.", "voice": "alloy"]
            func expect400(_ body: [String: Any], _ words: String..., line: Int = #line) async throws {
                let result = try await Self.speak(platform, token: token, body)
                #expect(result.status == 400, "line \(line): \(result.text)")
                #expect(result.errorCode == "INVALID_ARGUMENT", "line \(line)")
                for word in words {
                    #expect(result.errorMessage.contains(word), "line \(line): \(result.errorMessage)")
                }
            }
            try await expect400(good.merging(["input": ""]) { $1 }, "input is empty")
            try await expect400(good.merging(["input": String(repeating: "a", count: 4097)]) { $1 }, "4097", "4096")
            try await expect400(good.merging(["voice": "darth"]) { $1 }, "darth", "alloy", "verse")
            try await expect400(good.merging(["model": "whisper-1"]) { $1 }, "whisper-1", "tts-1", "gpt-4o-mini-tts")
            try await expect400(
                good.merging(["response_format": "aiff"]) { $1 }, "aiff", "wav, pcm, opus, mp3, aac, flac")
            try await expect400(good.merging(["speed": 5]) { $1 }, "speed", "0.25", "4.0")
            try await expect400(good.merging(["instructions": "whisper"]) { $1 }, "gpt-4o-mini-tts")
            try await expect400(good.merging(["stream_format": "sse"]) { $1 }, "stream_format")
            try await expect400(good.merging(["language": "xx"]) { $1 }, "espeak-ng does not speak \"xx\"")
            try await expect400(good.merging(["language": "en_!!"]) { $1 }, "not an ISO 639-1 code or BCP 47 tag")
            try await expect400(good.merging(["input": " \n\t "]) { $1 }, "input is empty")
            try await expect400(good.merging(["temperature": 1]) { $1 }, "unknown field `temperature`")
            try await expect400(["model": "tts-1", "voice": "alloy"], "missing field `input`")
            try await expect400(good.merging(["voice": ["id": "voice_1"]]) { $1 }, "voice", "string")
            // Exactly 4096 characters is allowed (OpenAI's limit counts characters, not UTF-8 bytes).
            let longest = String(String(repeating: "Café au lait. ", count: 300).prefix(4096))
            #expect(longest.count == 4096 && longest.utf8.count > 4096)
            let longestResult = try await Self.speak(
                platform, token: token, good.merging(["input": longest, "response_format": "opus"]) { $1 })
            #expect(longestResult.status == 200, "\(longestResult.text)")

            let malformed = try await platform.send(
                "POST", APIPath.openAISpeech, token: token, body: Data("{\"model\": ".utf8),
                headers: ["Content-Type": "application/json"])
            #expect(malformed.status == 400)
            #expect(malformed.errorMessage.contains("not valid JSON"), "\(malformed.errorMessage)")
            let anonymous = try await Self.speak(platform, token: nil, good)
            #expect(anonymous.status == 401)
            #expect(anonymous.errorCode == "UNAUTHORIZED")
            let user = try await Self.speak(platform, token: userToken, good)
            #expect(user.status == 403, "partner-only, as /v1/audio/transcriptions: \(user.text)")
        }
    }

    @Test func aMissingEngineIs503SayingHowToInstallIt() async throws {
        try await TestPlatform.with({ $0.speechEspeakPath = "/nonexistent/espeak-ng" }) { platform in
            let token = try await platform.partnerToken(try await platform.createPartner())
            let result = try await Self.speak(
                platform, token: token, ["model": "tts-1", "input": "Hi.", "voice": "alloy"])
            #expect(result.status == 503)
            #expect(result.errorCode == "UNAVAILABLE")
            #expect(result.errorMessage.contains("apt-get install espeak-ng"), "\(result.errorMessage)")
        }
    }

    @Test func speechLongerThanTheMaximumIs400() async throws {
        try await TestPlatform.with({ $0.speechMaxDuration = .seconds(5) }) { platform in
            let token = try await platform.partnerToken(try await platform.createPartner())
            let long = String(repeating: Self.sentence + " ", count: 10)
            let result = try await Self.speak(
                platform, token: token, ["model": "tts-1", "input": long, "voice": "alloy"])
            #expect(result.status == 400)
            #expect(result.errorMessage.contains("longer than 5 s"), "\(result.errorMessage)")
            let short = try await Self.speak(
                platform, token: token, ["model": "tts-1", "input": "Short.", "voice": "alloy"])
            #expect(short.status == 200)
        }
    }

    @Test func aFullServerAnswers429WithRetryAfter() async throws {
        try await TestPlatform.with({ $0.speechConcurrency = 1 }) { platform in
            let token = try await platform.partnerToken(try await platform.createPartner())
            // Minutes of speech each, so the first still holds its slot when the others arrive.
            let long = String(repeating: Self.sentence + " ", count: 45)
            let statuses = try await withThrowingTaskGroup(of: (Int, String?, String).self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let result = try await Self.speak(
                            platform, token: token,
                            ["model": "tts-1", "input": long, "voice": "alloy", "response_format": "opus"])
                        return (result.status, result.header("Retry-After"), result.errorMessage)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let refused = statuses.filter { $0.0 == 429 }
            #expect(statuses.filter { $0.0 == 200 }.count >= 2, "one ran, one waited: \(statuses.map(\.0))")
            #expect(refused.count >= 1, "\(statuses.map(\.0))")
            for (_, retryAfter, message) in refused {
                #expect((1...60).contains(Int(retryAfter ?? "") ?? 0))
                #expect(message.contains("speech syntheses"), "\(message)")
            }
        }
    }
}
