import EarshotCore
import EarshotServer
import Foundation
import Testing

/// The `speech-*` settings: their defaults, their sources (flags, `EARSHOT_*`, file), and a clear refusal of every
/// bad value.
@Suite struct SpeechSettingsTests {
    let spec = CommandSpec(
        name: "earshot serve", abstract: "Serve.", options: ServerConfiguration.commandLineOptions)

    func load(_ arguments: [String] = [], environment: [String: String] = [:]) throws(ConfigurationError)
        -> ServerConfiguration
    {
        try ServerConfiguration.load(arguments: try! spec.parse(arguments), environment: environment)
    }

    @Test func defaultsAreEspeakWithTwoSlots() throws {
        let configuration = try load()
        #expect(configuration.speechProvider == "espeak")
        #expect(configuration.speechConcurrency == 2)
        #expect(configuration.speechModel == "tts-1")
        #expect(configuration.speechAPIKey == nil && configuration.speechEspeakPath == nil)
    }

    @Test func aProviderURLItsKeyAndModel() throws {
        let directory = try TestDirectory()
        let keyFile = directory.url.appendingPathComponent("key")
        try "sk-test-123\n".write(to: keyFile, atomically: true, encoding: .utf8)
        let configuration = try load(
            [
                "--speech-provider", "https://tts.example.com/v1/", "--speech-api-key-file", keyFile.path,
                "--speech-model", "gpt-4o-mini-tts", "--speech-concurrency", "8",
            ])
        #expect(configuration.speechProvider == "https://tts.example.com/v1", "the trailing slash is dropped")
        #expect(configuration.speechAPIKey == "sk-test-123")
        #expect(configuration.speechModel == "gpt-4o-mini-tts")
        #expect(configuration.speechConcurrency == 8)
        let fromEnvironment = try load(environment: [
            "EARSHOT_SPEECH_API_KEY": "sk-env", "EARSHOT_SPEECH_PROVIDER": "espeak",
        ])
        #expect(fromEnvironment.speechAPIKey == "sk-env")
    }

    @Test(arguments: [
        (["--speech-provider", "festival"], "neither espeak nor an http(s) URL"),
        (["--speech-provider", "ftp://tts.example.com/v1"], "neither espeak nor an http(s) URL"),
        (["--speech-api-key-file", "/nonexistent/key"], "cannot read /nonexistent/key"),
        (["--speech-concurrency", "0"], "request count (1-64)"),
        (["--speech-model", ""], "must not be empty"),
        (["--speech-espeak-path", ""], "must not be empty"),
    ])
    func badValuesAreRefusedNamingTheSetting(arguments: [String], message: String) {
        let error = #expect(throws: ConfigurationError.self) { try load(arguments) }
        let issue = error?.issues.first
        #expect(issue?.setting == String(arguments[0].dropFirst(2)))
        #expect(issue?.message.contains(message) == true, "\(issue?.message ?? "")")
    }

    /// A temporary directory removed when dropped.
    final class TestDirectory {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-speech-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
    }
}
