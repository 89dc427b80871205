import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The OpenAI-compatible endpoints with hand-built multipart requests (the official SDK's suite runs against
/// `earshot serve` in `Tests/EarshotCLITests/OpenAISDKTests.swift`).
@Suite(.serialized, .enabled(if: TestAudio.modelsInstalled, "speech models not installed (run `make models`)"))
struct OpenAICompatibilityTests {
    @Test func malformedFormsGetClearErrors() async throws {
        try await TestPlatform.with({ $0.openAIMaxFileSize = 64 << 10 }) { platform in
            let (_, token, _) = try await platform.newUser()
            func post(_ fields: [(String, String?, Data)], contentType: String? = nil) async throws
                -> TestPlatform.HTTPResult
            {
                try await platform.postForm(fields, token: token, contentType: contentType)
            }
            let unsupported = try await post([
                ("model", nil, Data("whisper-1".utf8)), ("diarize", nil, Data("true".utf8)),
                ("file", "x.wav", testContent(10)),
            ])
            #expect(unsupported.status == 400)
            #expect(unsupported.errorMessage.contains("parameter `diarize` is not supported"))
            let streamedSRT = try await post([
                ("model", nil, Data("whisper-1".utf8)), ("stream", nil, Data("true".utf8)),
                ("response_format", nil, Data("srt".utf8)), ("file", "x.wav", testContent(10)),
            ])
            #expect(streamedSRT.status == 400)
            #expect(streamedSRT.errorMessage.contains("stream=true"))
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
