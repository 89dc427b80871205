/// What a face-to-face dialogue asks of speech synthesis: a translated utterance spoken in the listener's language
/// and voice, as PCM16 at the session's output rate.
///
/// The server implements it over its `SpeechSynthesizer` (espeak-ng or an OpenAI-compatible provider); the session
/// module knows nothing of providers.
public protocol LiveSpeaker: Sendable {
    /// Checks a channel's voice and language before the session takes them; throws a description of what is wrong
    /// (a voice that is not offered).
    func validate(voice: String, language: String) async throws

    /// Speaks `text` in `language` with `voice`.
    ///
    /// - Returns: PCM16 little-endian mono samples at `sampleRate` Hz.
    /// - Throws: when the text cannot be spoken (the error's description reaches the client in a
    ///   `response.output_audio.failed` event; the session goes on).
    func speak(_ text: String, language: String, voice: String, sampleRate: Int) async throws -> [UInt8]
}
