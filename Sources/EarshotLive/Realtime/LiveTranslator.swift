/// What a live session asks for simultaneous interpretation (`translate_to`): each completed item's text in another
/// language.
///
/// The server implements it with Whisper's own speech→English task when the target is English, and with its notes
/// provider (and that provider's quality gate) otherwise.
public protocol LiveTranslator: Sendable {
    /// Checks a target language a client chose (ISO 639-1); throws a description of what is wrong (an unknown or
    /// unsupported language, or — when `strict` — no way to translate into it on this server). A dialogue checks
    /// its channels' languages with `strict` false: a side whose translations cannot be made on this server gets a
    /// `failed` event per item (`translation_unavailable`) while the other direction still works.
    func validate(target: String, strict: Bool) async throws

    /// Translates one completed item into `target`.
    ///
    /// - Parameters:
    ///   - samples: the item's audio (16 kHz mono), as decoded for its transcript.
    ///   - recognition: the item's final transcript and the language it was decoded in.
    ///   - settings: the session's transcription settings when the item was committed.
    /// - Returns: the translated text.
    /// - Throws: when no trustworthy translation can be given; a ``RealtimeError`` names the reason in its `code`
    ///   and `message` (they reach the client in a `…translation.failed` event), any other error's description is
    ///   the message.
    func translate(
        _ samples: [Float], recognition: Recognition, settings: TranscriptionSettings, to target: String
    ) async throws -> String
}
