/// How to decode one recording. The defaults are the safe ones: auto-detected language, greedy decoding with
/// temperature fallback, Silero VAD on, no conditioning on previous text, hallucination guards on.
public struct TranscriptionOptions: Sendable, Hashable {
    /// Transcribe in the spoken language, or translate to English.
    public enum Task: String, Sendable, Hashable, CaseIterable {
        /// Text in the spoken language.
        case transcribe
        /// English text whatever the spoken language (multilingual models only).
        case translate
    }

    /// How many encoder positions a short clip pays for (see docs/speech.md, "Short clips").
    public enum AudioContext: Sendable, Hashable {
        /// The full 30 s window (1500 positions) for every clip, as whisper.cpp's CLI does.
        case full
        /// Clips (after VAD) shorter than 30 s use a window sized to their length (``AudioContextRule``).
        case automatic
        /// Like ``automatic`` with another rule (for measuring the trade-off).
        case rule(AudioContextRule)
        /// A fixed number of positions (1…1500); fewer than the clip needs truncates it.
        case fixed(Int)
    }

    /// Spoken language as an ISO code (`en`, `de`, `zh`, …) or English name (`german`), or nil to detect it
    /// from the first 30 s of speech.
    public var language: String?
    /// Transcribe or translate to English.
    public var task: Task = .transcribe
    /// Text the decoder sees before the first window (names, spelling, style), or nil.
    public var initialPrompt: String?
    /// Words to favour (names, jargon); appended to the prompt as a glossary.
    public var hotwords: [String] = []
    /// Beam width; 1 decodes greedily (fastest), 5 is the usual accurate setting.
    public var beamSize: Int = 1
    /// Candidates sampled at each fallback temperature above 0.
    public var bestOf: Int = 2
    /// Temperature of the first attempt (0 = deterministic).
    public var temperature: Float = 0
    /// Step added to the temperature when a window fails the entropy or log-probability check; 0 disables
    /// fallback.
    public var temperatureIncrement: Float = 0.2
    /// A window whose token entropy is below this is too repetitive and is decoded again hotter (whisper.cpp's
    /// analogue of OpenAI's compression-ratio threshold 2.4).
    public var entropyThreshold: Float = 2.4
    /// A window whose mean token log-probability is below this is decoded again hotter.
    public var logProbabilityThreshold: Float = -1.0
    /// A window whose no-speech probability is above this and whose log-probability is low counts as silence.
    public var noSpeechThreshold: Float = 0.6
    /// Compute per-word start/end times and probabilities (token timestamps).
    public var wordTimestamps: Bool = false
    /// Keep every text token (id, text, log-probability) in ``Transcript/Segment/tokens`` (OpenAI's `tokens` and
    /// `logprobs`); off by default, as it makes stored transcripts several times larger.
    public var tokenDetails: Bool = false
    /// Below this detected-language probability the detection is uncertain: the decode tries the most likely
    /// languages (up to ``languageCandidates``), keeps the one that decodes best and says so in the transcript's
    /// warnings. Between this and 90 % the other candidates are tried only when the detected language decodes
    /// badly (nothing recognised, or a low mean log-probability).
    public var languageConfidence: Double = 0.5
    /// How many detected languages an uncertain decode tries, at most (1: always trust detection).
    public var languageCandidates: Int = 3
    /// Voice-activity detection before decoding; nil decodes everything (silence invites hallucinations).
    public var voiceActivity: VoiceActivityOptions? = VoiceActivityOptions()
    /// Feed each window the previous window's text. Off by default: it makes loops more likely.
    public var conditionOnPreviousText: Bool = false
    /// Short-clip encoder window policy.
    public var audioContext: AudioContext = .automatic
    /// Suppress blank outputs at the start of a window.
    public var suppressBlank: Bool = true
    /// Suppress non-speech tokens (music notes, bracketed sound descriptions).
    public var suppressNonSpeech: Bool = true
    /// Rewrite clock times and identifiers in English text the way people write them (``NumberForms``):
    /// `at 745` → `at 7:45`, `order number 47,291` → `order number 47291`.
    public var numberForms: Bool = true
    /// Post-decoding guards against repeated loops and text over silence.
    public var filter: HallucinationFilter.Configuration = HallucinationFilter.Configuration()

    /// Default options.
    public init() {}

    /// The prompt whisper.cpp receives: the initial prompt, then the hotwords as a glossary.
    var effectivePrompt: String? {
        var parts: [String] = []
        if let initialPrompt, !initialPrompt.isEmpty { parts.append(initialPrompt) }
        if !hotwords.isEmpty { parts.append("Glossary: " + hotwords.joined(separator: ", ") + ".") }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// Throws if an option is out of range.
    func validate(multilingual: Bool) throws(SpeechError) {
        if let language, !SpeechModel.isKnownLanguage(language) {
            throw SpeechError(
                .invalidOption, "unknown language '\(language)': use an ISO code such as en, de, fr, zh, or omit it")
        }
        guard (1...8).contains(beamSize) else {
            throw SpeechError(.invalidOption, "beam size \(beamSize) is out of range: use 1 (greedy) to 8")
        }
        guard (1...8).contains(bestOf) else {
            throw SpeechError(.invalidOption, "bestOf \(bestOf) is out of range: use 1 to 8")
        }
        guard temperature >= 0, temperature <= 1, temperatureIncrement >= 0 else {
            throw SpeechError(.invalidOption, "temperature must be in 0…1 and its increment ≥ 0")
        }
        if task == .translate, !multilingual {
            throw SpeechError(
                .invalidOption, "translation needs a multilingual model; English-only (*.en) models only transcribe")
        }
        if case .fixed(let positions) = audioContext, !(1...1500).contains(positions) {
            throw SpeechError(.invalidOption, "audio context \(positions) is out of range: use 1…1500")
        }
    }
}

/// Silero voice-activity detection settings (whisper.cpp's `whisper_vad_params`).
public struct VoiceActivityOptions: Sendable, Hashable {
    /// The ggml Silero model; nil uses `$EARSHOT_HOME/models/silero-v6.2.0-ggml.bin`.
    public var modelPath: String?
    /// Speech probability above which a frame is speech.
    public var threshold: Float = 0.5
    /// Speech shorter than this is dropped.
    public var minimumSpeech: Duration = .milliseconds(250)
    /// Silence shorter than this does not end a speech segment.
    public var minimumSilence: Duration = .milliseconds(100)
    /// Padding kept before and after each speech segment.
    public var speechPadding: Duration = .milliseconds(30)
    /// Audio carried over from one speech segment into the gap after it.
    public var overlap: Duration = .milliseconds(100)
    /// Silence inserted between two speech segments in the audio given to the decoder.
    public var gap: Duration = .milliseconds(100)

    /// Default settings (whisper.cpp's).
    public init(modelPath: String? = nil) { self.modelPath = modelPath }
}
