import EarshotModels
import EarshotSpeech
import Foundation

/// A `/v1/audio/transcriptions` or `/v1/audio/translations` form, checked once: every parameter Earshot honours is
/// parsed here, and any other is refused (400 naming it) rather than silently ignored.
///
/// Transcriptions take `file`, `model`, `language`, `prompt`, `response_format` (`json`, `text`, `srt`, `vtt`,
/// `verbose_json`, `diarized_json`), `temperature`, `timestamp_granularities[]`, `stream`, `include[]`
/// (`logprobs`), `chunking_strategy` (`auto`, or `server_vad` with `threshold`, `prefix_padding_ms`,
/// `silence_duration_ms`: Earshot's Silero VAD settings), `keywords[]` (words to favour),
/// `known_speaker_names[]` with `known_speaker_references[]` (data URLs of short samples that name speakers in
/// `diarized_json`), and Earshot's `store`. Translations take `file`, `model`, `prompt`, `response_format` (not
/// `diarized_json`), `temperature` and `store`, as OpenAI's translation endpoint does.
struct OpenAIRequest: Sendable {
    enum Format: String, Sendable, CaseIterable {
        case json, text, srt, vtt
        case verboseJSON = "verbose_json"
        case diarizedJSON = "diarized_json"
    }

    /// A known speaker: a name and the data URL of a sample of their voice.
    struct KnownSpeaker: Sendable {
        var name: String
        var mediaType: String
        var audio: Data
    }

    var tier: String
    var format: Format
    var options: TranscriptionOptions
    var words: Bool
    var stream: Bool
    var logprobs: Bool
    var store: Bool
    var knownSpeakers: [KnownSpeaker]

    /// Form fields of transcriptions, as OpenAI's SDKs send them (arrays as `name[]`, objects as `name[key]`).
    static let transcriptionFields: Set<String> = [
        "file", "model", "language", "prompt", "response_format", "temperature", "timestamp_granularities[]",
        "timestamp_granularities", "stream", "include[]", "include", "chunking_strategy", "keywords[]", "keywords",
        "known_speaker_names[]", "known_speaker_references[]", "store",
    ]
    /// Form fields of translations.
    static let translationFields: Set<String> = [
        "file", "model", "prompt", "response_format", "temperature", "store",
    ]

    /// Parses `form` for `task`, throwing 400 `INVALID_ARGUMENT` for the first field that is wrong or not offered.
    init(_ form: OpenAIRoutes.Form, task: TranscriptionOptions.Task, tierOptions: (String) async throws -> TranscriptionOptions)
        async throws
    {
        let allowed = task == .transcribe ? Self.transcriptionFields : Self.translationFields
        for name in form.fields.keys.sorted() where !allowed.contains(name) {
            let base = name.hasPrefix("chunking_strategy[") && task == .transcribe ? "chunking_strategy" : nil
            guard base == nil else { continue }
            throw PlatformError.invalidArgument(Self.unsupportedMessage(name, task: task))
        }
        guard let model = form.value("model") else {
            throw PlatformError.invalidArgument("the form has no `model` field; use whisper-1, asr-fast or asr-pro")
        }
        guard let tier = ModelTier.named(model)?.name else {
            throw PlatformError.invalidArgument(ModelTier.notOfferedMessage(model))
        }
        self.tier = tier
        let formats = task == .transcribe ? Format.allCases : Format.allCases.filter { $0 != .diarizedJSON }
        let formatName = form.value("response_format") ?? "json"
        guard let format = Format(rawValue: formatName), formats.contains(format) else {
            throw PlatformError.invalidArgument(
                "response_format \"\(formatName.prefix(32))\" is not supported; use "
                    + formats.map(\.rawValue).joined(separator: ", "))
        }
        self.format = format
        var options = try await tierOptions(tier)
        options.task = task
        if task == .transcribe, let language = form.value("language"), !language.isEmpty {
            guard SpeechModel.isKnownLanguage(language.lowercased()) else {
                throw PlatformError.invalidArgument("language \"\(language.prefix(16))\" is unknown; use an ISO-639-1 code")
            }
            options.language = language.lowercased()
        }
        if let prompt = form.value("prompt"), !prompt.isEmpty { options.initialPrompt = prompt }
        if let text = form.value("temperature") {
            guard let temperature = Float(text), (0...1).contains(temperature) else {
                throw PlatformError.invalidArgument("temperature must be a number between 0 and 1")
            }
            options.temperature = temperature
        }
        let granularities = Set(form.values("timestamp_granularities[]") + form.values("timestamp_granularities"))
        guard granularities.isSubset(of: ["segment", "word"]) else {
            throw PlatformError.invalidArgument("timestamp_granularities[] accepts segment and word")
        }
        words = granularities.contains("word")
        if words {
            guard format == .verboseJSON else {
                throw PlatformError.invalidArgument("word timestamps need response_format verbose_json")
            }
            options.wordTimestamps = true
        }
        stream = try Self.boolean(form.value("stream"), name: "stream")
        if stream, ![.json, .text, .diarizedJSON].contains(format) {
            throw PlatformError.invalidArgument(
                "stream=true sends transcript.text.delta events; use response_format json, text or diarized_json "
                    + "(\(format.rawValue) is only sent whole)")
        }
        let include = form.values("include[]") + form.values("include")
        if let other = include.first(where: { $0 != "logprobs" }) {
            throw PlatformError.invalidArgument("include[] \"\(other.prefix(32))\" is not supported; Earshot offers logprobs")
        }
        logprobs = !include.isEmpty
        if logprobs, ![.json, .text].contains(format) || task != .transcribe {
            throw PlatformError.invalidArgument("include[]=logprobs needs response_format json (or a stream)")
        }
        options.tokenDetails = logprobs || format == .verboseJSON
        options.voiceActivity = try Self.chunking(form, base: options.voiceActivity)
        options.hotwords = (form.values("keywords[]") + form.values("keywords")).filter { !$0.isEmpty }
        if options.hotwords.count > 100 {
            throw PlatformError.invalidArgument("keywords[] takes at most 100 words")
        }
        store = try Self.boolean(form.value("store"), name: "store")
        knownSpeakers = try Self.knownSpeakers(form)
        if !knownSpeakers.isEmpty, format != .diarizedJSON {
            throw PlatformError.invalidArgument("known_speaker_names[] name speakers of response_format diarized_json")
        }
        self.options = options
    }

    static func unsupportedMessage(_ name: String, task: TranscriptionOptions.Task) -> String {
        let shown = name.prefix(48)
        switch name {
        case "languages[]", "languages":
            return "parameter `\(shown)` is not supported by Earshot: send one `language`, or none to detect it"
        case "stream" where task == .translate:
            return "parameter `stream` is not supported on translations (OpenAI's translation endpoint has none)"
        default:
            let accepted = (task == .transcribe ? transcriptionFields : translationFields).sorted()
            return "parameter `\(shown)` is not supported by Earshot's \(task == .transcribe ? "transcription" : "translation") "
                + "endpoint; it takes " + accepted.joined(separator: ", ")
        }
    }

    static func boolean(_ value: String?, name: String) throws -> Bool {
        switch value?.lowercased() {
        case nil, "false", "0": false
        case "true", "1": true
        case let other?: throw PlatformError.invalidArgument("\(name) \"\(other.prefix(16))\" must be true or false")
        }
    }

    /// `chunking_strategy`: `auto` (the default VAD), or `server_vad` with OpenAI's knobs mapped onto Silero's.
    static func chunking(_ form: OpenAIRoutes.Form, base: VoiceActivityOptions?) throws -> VoiceActivityOptions? {
        let keys = form.fields.keys.filter { $0.hasPrefix("chunking_strategy[") }
        if let value = form.value("chunking_strategy") {
            guard keys.isEmpty, value == "auto" else {
                throw PlatformError.invalidArgument(
                    "chunking_strategy must be \"auto\" or {\"type\": \"server_vad\", …}, not \"\(value.prefix(32))\"")
            }
            return base ?? VoiceActivityOptions()
        }
        guard !keys.isEmpty else { return base }
        let known = ["type", "threshold", "prefix_padding_ms", "silence_duration_ms"]
        if let other = keys.first(where: { !known.map { "chunking_strategy[\($0)]" }.contains($0) }) {
            throw PlatformError.invalidArgument(
                "`\(other.prefix(48))` is not supported; server_vad takes threshold, prefix_padding_ms and "
                    + "silence_duration_ms")
        }
        guard form.value("chunking_strategy[type]") == "server_vad" else {
            throw PlatformError.invalidArgument("chunking_strategy[type] must be server_vad")
        }
        var vad = base ?? VoiceActivityOptions()
        if let text = form.value("chunking_strategy[threshold]") {
            guard let threshold = Float(text), (0...1).contains(threshold) else {
                throw PlatformError.invalidArgument("chunking_strategy threshold must be between 0 and 1")
            }
            vad.threshold = threshold
        }
        func milliseconds(_ key: String) throws -> Duration? {
            guard let text = form.value("chunking_strategy[\(key)]") else { return nil }
            guard let value = Int(text), (0...10_000).contains(value) else {
                throw PlatformError.invalidArgument("chunking_strategy \(key) must be 0…10000 milliseconds")
            }
            return .milliseconds(value)
        }
        if let padding = try milliseconds("prefix_padding_ms") { vad.speechPadding = padding }
        if let silence = try milliseconds("silence_duration_ms") { vad.minimumSilence = silence }
        return vad
    }

    /// `known_speaker_names[]` paired with `known_speaker_references[]` (data URLs of audio, at most 4).
    static func knownSpeakers(_ form: OpenAIRoutes.Form) throws -> [KnownSpeaker] {
        let names = form.values("known_speaker_names[]")
        let references = form.values("known_speaker_references[]")
        guard names.count == references.count else {
            throw PlatformError.invalidArgument(
                "known_speaker_names[] (\(names.count)) and known_speaker_references[] (\(references.count)) must "
                    + "come in pairs")
        }
        guard names.count <= 4 else { throw PlatformError.invalidArgument("at most 4 known speakers") }
        return try zip(names, references).map { name, reference in
            guard !name.isEmpty, name.count <= 64 else {
                throw PlatformError.invalidArgument("a known speaker name must be 1-64 characters")
            }
            guard reference.hasPrefix("data:"), let comma = reference.firstIndex(of: ","),
                reference[..<comma].hasSuffix(";base64"),
                let audio = Data(base64Encoded: String(reference[reference.index(after: comma)...]))
            else {
                throw PlatformError.invalidArgument(
                    "known_speaker_references[] for \(name) must be a data URL (data:audio/wav;base64,…)")
            }
            let mediaType = String(reference.dropFirst(5).prefix { $0 != ";" && $0 != "," })
            return KnownSpeaker(name: name, mediaType: mediaType, audio: audio)
        }
    }
}
