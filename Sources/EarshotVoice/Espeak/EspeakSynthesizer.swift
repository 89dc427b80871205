public import Foundation
import Synchronization

/// Speech from espeak-ng (Debian's `espeak-ng` package), run as a child process per request — it is GPL and is
/// never linked into Earshot — with the WAV it writes to stdout read back into samples at 22,050 Hz.
///
/// Languages are ISO 639-1 codes or BCP 47 tags mapped onto espeak-ng's own (`en` → `en-us`, `zh` → `cmn`,
/// `pt-BR` → `pt-br`); the languages offered are read once from `espeak-ng --voices`. Each ``StandardVoice`` is a
/// distinct espeak-ng variant (`alloy` → `+m3`, `nova` → `+f3`, …). Speed 1 is 175 words per minute, clamped to
/// espeak-ng's 80…450. `instructions` are ignored: espeak-ng cannot follow them.
///
/// Thread-safe: at most ``Configuration/concurrency`` children run at once, the rest wait; a cancelled task
/// terminates its child.
public struct EspeakSynthesizer: SpeechSynthesizer {
    /// How to run espeak-ng.
    public struct Configuration: Sendable, Hashable {
        /// The `espeak-ng` binary; nil looks it up on `PATH`.
        public var executable: String?
        /// Children running at once.
        public var concurrency: Int
        /// One synthesis may take this long before its child is stopped (`timeout`).
        public var timeout: Duration
        /// The language of requests that name none.
        public var defaultLanguage: String
        /// The longest speech one request may make: espeak-ng is stopped past it and the request refused
        /// (`invalidInput`), so a text that would speak for half an hour costs a fraction of a second.
        public var maxDuration: Duration

        /// Creates a configuration.
        public init(
            executable: String? = nil, concurrency: Int = 2, timeout: Duration = .seconds(60),
            defaultLanguage: String = "en", maxDuration: Duration = .seconds(600)
        ) {
            self.executable = executable
            self.concurrency = concurrency
            self.timeout = timeout
            self.defaultLanguage = defaultLanguage
            self.maxDuration = maxDuration
        }
    }

    /// espeak-ng's output rate.
    public static let sampleRate = 22_050

    /// The options this synthesizer was created with.
    public let configuration: Configuration
    private let slots: SynthesisSlots
    private let languages = LanguageCache()

    /// The languages read from `espeak-ng --voices`, shared by copies of the synthesizer.
    private final class LanguageCache: Sendable {
        let names = Mutex<Set<String>?>(nil)
    }

    /// Creates a synthesizer; nothing runs until the first request.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        slots = SynthesisSlots(limit: configuration.concurrency)
    }

    public var name: String { "espeak-ng" }

    /// The espeak-ng binary, or ``VoiceError/Code/unavailable`` saying how to install it.
    public func executable() throws(VoiceError) -> URL {
        if let path = configuration.executable {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw VoiceError(
                    .unavailable,
                    "espeak-ng is not at \(path) (or is not executable): install Debian's espeak-ng package "
                        + "(apt-get install espeak-ng) or name its binary")
            }
            return URL(fileURLWithPath: path)
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("espeak-ng")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw VoiceError(
            .unavailable,
            "espeak-ng is not installed (not found on PATH): install Debian's espeak-ng package "
                + "(apt-get install espeak-ng; make setup does)")
    }

    /// The languages espeak-ng speaks (its own names, lower-cased), read once from `espeak-ng --voices`.
    ///
    /// - Throws: ``VoiceError/Code/unavailable`` when espeak-ng is missing, `failed` when it cannot list them.
    public func availableLanguages() async throws -> Set<String> {
        if let known = languages.names.withLock({ $0 }) { return known }
        let process = EngineProcess(
            executable: try executable(), arguments: ["--voices"], timeout: configuration.timeout)
        let output = try await process.run(input: Data())
        let listing = String(decoding: output.stdout, as: UTF8.self)
        let names = EspeakVoices.parseLanguages(listing)
        guard output.status == 0, !names.isEmpty else {
            throw VoiceError(.failed, "espeak-ng --voices failed (exit \(output.status)): \(output.stderr)")
        }
        languages.names.withLock { $0 = names }
        return names
    }

    /// The `-v` argument for `request`: espeak-ng's language and the voice's variant.
    ///
    /// - Throws: ``VoiceError/Code/unsupportedLanguage``, ``VoiceError/Code/unsupportedVoice``.
    public func espeakVoice(for request: SpeechRequest) async throws -> String {
        let voiceName = request.voice ?? StandardVoice.default.rawValue
        guard let voice = StandardVoice.named(voiceName) else {
            throw VoiceError(
                .unsupportedVoice, "voice \"\(voiceName.prefix(32))\" is not offered; use one of \(StandardVoice.list)")
        }
        let tag = request.language ?? configuration.defaultLanguage
        let available = try await availableLanguages()
        guard let language = EspeakVoices.language(tag, available: available) else {
            throw VoiceError(
                .unsupportedLanguage,
                "espeak-ng does not speak \"\(tag.prefix(32))\"; it speaks "
                    + available.sorted().joined(separator: ", "))
        }
        return language + "+" + EspeakVoices.variant(of: voice)
    }

    public func synthesize(_ request: SpeechRequest) async throws -> SynthesizedSpeech {
        try request.validate()
        let voice = try await espeakVoice(for: request)
        let arguments = ["--stdout", "-b", "1", "-v", voice, "-s", "\(EspeakVoices.wordsPerMinute(request.speed))"]
        let maxOutput = 44 + Int(configuration.maxDuration.seconds * Double(Self.sampleRate)) * 2
        let process = EngineProcess(
            executable: try executable(), arguments: arguments, timeout: configuration.timeout, maxOutput: maxOutput)
        // The text goes through stdin, so no input can be taken for an option.
        let input = Data(request.text.utf8)
        let output = try await slots.run { try await process.run(input: input) }
        try Task.checkCancellation()
        if output.overflowed {
            throw VoiceError(
                .invalidInput,
                "the input speaks for longer than \(Self.minutes(configuration.maxDuration)) at speed \(request.speed), "
                    + "the most one request may: split it into shorter parts")
        }
        if output.timedOut {
            throw VoiceError(.timeout, "espeak-ng did not finish within \(configuration.timeout)")
        }
        guard output.status == 0 else {
            throw VoiceError(
                .failed, "espeak-ng -v \(voice) failed (exit \(output.status)): \(output.stderr.prefix(512))")
        }
        return try PCM16.wav(output.stdout)
    }

    /// `10 min`, `90 s`.
    static func minutes(_ duration: Duration) -> String {
        let seconds = Int(duration.seconds.rounded())
        return seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
    }
}
