import EarshotCore
import EarshotLive
import EarshotNotes
import EarshotSpeech

/// Simultaneous interpretation for live sessions (`translate_to`, ``LiveTranslator``): into English with Whisper's
/// own speech→English task on the item's audio (through the server's engine and decode admission, like the
/// transcript), into any other language with the server's notes provider. Both pass the same quality gate
/// (``TranslationCheck``: the notes provider applies it itself, Whisper's English is checked here against the item's
/// transcript), which turns an untrustworthy translation into a `translation_untrusted` failure, never a
/// translation shown to the client.
struct LiveInterpreter: LiveTranslator {
    let engines: FileTranscriber
    let admission: DecodeAdmission
    let notes: any NoteProcessing

    func validate(target: String, strict: Bool) async throws {
        let target = Self.normalize(target)
        guard SpeechModel.isKnownLanguage(target) else {
            throw PlatformError.invalidArgument(
                "translate_to \"\(target.prefix(16))\" is not a known language; use an ISO-639-1 code such as en or fr")
        }
        guard target != "en" else { return }
        guard LanguageCatalog.translationTargets.contains(target) else {
            throw PlatformError.invalidArgument(
                "live sessions cannot be translated into \(LanguageCatalog.name(of: target)); choose one of "
                    + LanguageCatalog.translationTargets.joined(separator: ", "))
        }
        if strict, let processor = notes as? NoteProcessor, processor.model == nil {
            throw PlatformError.invalidArgument(
                "translating into \(LanguageCatalog.name(of: target)) needs a language model, and this server has "
                    + "none (set llm-base-url, or keep llm-managed on); translate_to \"en\" works without one")
        }
    }

    func translate(
        _ samples: [Float], recognition: Recognition, settings: TranscriptionSettings, to target: String
    ) async throws -> String {
        let target = Self.normalize(target)
        let source = recognition.language.map(Self.normalize)
        if source == target { return recognition.text }
        if target == "en" {
            let english = try await speechToEnglish(samples, settings: settings, source: source)
            try Self.check(english, of: recognition.text, from: source)
            return english
        }
        do {
            let segment = NoteSegment(startMs: 0, endMs: samples.count / 16, text: recognition.text)
            let translation = try await notes.translate([segment], from: source, to: target)
            return translation.segments.first?.text ?? ""
        } catch let error as NotesError {
            let code =
                switch error.code {
                case .lowQuality: "translation_untrusted"
                case .invalidConfiguration: "translation_unavailable"
                default: "translation_failed"
                }
            throw RealtimeError(type: "server_error", code: code, message: error.message)
        }
    }

    /// Whisper's translate task on the item's audio, in the session's tier and spoken language.
    private func speechToEnglish(_ samples: [Float], settings: TranscriptionSettings, source: String?) async throws
        -> String
    {
        guard let tier = EngineRecognizer.tier(settings.model) else { return "" }
        var options = TranscriptionOptions()
        options.language = settings.language?.lowercased() ?? source
        options.task = .translate
        let (engine, tierOptions, _) = try await engines.engine(for: tier, options: options)
        let transcript = try await admission.run { try await engine.transcript(of: samples, options: tierOptions) }
        return transcript.text
    }

    /// Whisper's translate task on synthetic or noisy speech can give English that is not a translation: the source
    /// language back, a phrase looping, a fragment. The notes provider's gate judges it against the item's transcript.
    ///
    /// - Throws: ``RealtimeError`` `translation_untrusted` naming what the gate found.
    static func check(_ english: String, of transcript: String, from source: String?) throws {
        guard !english.isEmpty, !transcript.isEmpty else { return }
        let verdict = TranslationCheck().verdict(
            source: [NoteSegment(startMs: 0, endMs: 0, text: transcript)], output: [english], sourceLanguage: source,
            target: "en")
        guard !verdict.passes else { return }
        throw RealtimeError(
            type: "server_error", code: "translation_untrusted",
            message: "Whisper's English for this item did not pass the translation check ("
                + verdict.warnings.joined(separator: "; ") + "): \"\(english.prefix(120))\"")
    }

    /// `code` lowercased with any region dropped (`fr-CA` → `fr`), as the notes provider reads it.
    static func normalize(_ code: String) -> String {
        String(code.lowercased().prefix { $0 != "-" && $0 != "_" })
    }
}
