import EarshotTestSupport
import Foundation
import Testing

/// `earshot transcribe` through the built binary, on the setup's JFK clip in several formats.
@Suite(.serialized, .exclusive("speech decoding")) struct TranscribeCommandTests {
    static let jfk = TestEnvironment.jfk.path
    static let ready = TestEnvironment.exist(TestEnvironment.jfk, TestEnvironment.asrFastModel)

    @Test(.enabled(if: ready, "needs the setup's models and test audio (make setup)"))
    func transcribesCompressedAndMismatchedFilesToSRTAndJSON() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("tx")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mp3 = directory.appendingPathComponent("jfk.mp3").path
        let wav = directory.appendingPathComponent("jfk-44k-stereo.wav").path
        try FFmpeg.run(["-i", Self.jfk, "-c:a", "libmp3lame", "-b:a", "64k", mp3])
        try FFmpeg.run(["-i", Self.jfk, "-ar", "44100", "-ac", "2", wav])
        let out = directory.appendingPathComponent("out").path

        let srt = try await Program.earshot.run(
            ["transcribe", mp3, wav, "--format", "srt", "--output", out], timeout: .seconds(180))
        #expect(srt.status == 0, "\(srt.stderr)")
        // The mismatched WAV is converted, with the seed's middle-tier warnings.
        #expect(srt.stderr.contains("44100 Hz, not 16000 Hz"))
        for name in ["jfk.srt", "jfk-44k-stereo.srt"] {
            let text = try String(contentsOfFile: out + "/" + name, encoding: .utf8)
            #expect(text.hasPrefix("1\n00:00:0"))
            #expect(text.contains(" --> "))
            #expect(text.lowercased().contains("ask not what your country can do for you"))
        }

        let json = try await Program.earshot.run(["transcribe", mp3, "--format", "json"], timeout: .seconds(180))
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let segments = try #require(object?["segments"] as? [[String: Any]])
        #expect(!segments.isEmpty)
        #expect(segments.allSatisfy { $0["start_ms"] is Int && $0["end_ms"] is Int && $0["text"] is String })
        #expect((segments.last?["end_ms"] as? Int ?? 0) > 9_000)
    }

    @Test func badInputsAreClearErrors() async throws {
        let notAudio = try await Program.earshot.run(["transcribe", "/etc/hostname"], timeout: .seconds(60))
        #expect(notAudio.status == 1, "\(notAudio)")
        #expect(notAudio.stderr.contains("not an audio file"))
        #expect(notAudio.stderr.contains("ffmpeg -i /etc/hostname -ar 16000 -ac 1"))
        let model = try await Program.earshot.run(["transcribe", "/etc/hostname", "--model", "asr-slow"])
        #expect(model.status == 1, "\(model)")
        #expect(model.stderr.contains("'asr-slow' is not a model name, a tier or a file"))
        let none = try await Program.earshot.run(["transcribe"])
        #expect(none.status == 64, "\(none)")
        #expect(none.stderr.contains("missing argument FILE"))
    }
}
