/// Turns text into speech: a local engine run as a child process (``EspeakSynthesizer``) or a remote
/// OpenAI-compatible `/v1/audio/speech` server (``OpenAISpeechSynthesizer``).
///
/// Implementations are safe to call from many tasks at once; each bounds how many syntheses run together and
/// makes the rest wait their turn. A cancelled task stops its synthesis (the child process is terminated, the HTTP
/// request cancelled) and gets `CancellationError`.
public protocol SpeechSynthesizer: Sendable {
    /// What the synthesizer is, for logs and errors (`espeak-ng`, `http://tts.internal/v1`).
    var name: String { get }

    /// Speaks `request`.
    ///
    /// - Returns: mono samples at the synthesizer's rate (``SynthesizedSpeech/sampleRate``).
    /// - Throws: ``VoiceError`` (`invalidInput`, `unsupportedLanguage`, `unsupportedVoice` for the caller's
    ///   mistakes; `unavailable`, `timeout`, `providerError`, `invalidResponse`, `failed` for the engine's), or
    ///   `CancellationError`.
    func synthesize(_ request: SpeechRequest) async throws -> SynthesizedSpeech
}
