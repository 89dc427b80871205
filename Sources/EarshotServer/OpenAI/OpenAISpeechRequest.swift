import EarshotNotes
import EarshotVoice

/// A `POST /v1/audio/speech` body, checked once: OpenAI's fields (`model`, `input`, `voice`, `response_format`,
/// `speed`, `instructions`, `stream_format`) and Earshot's `language`; any other field is refused by the strict JSON
/// decoder (400 naming it).
struct OpenAISpeechRequest: Sendable {
    /// The audio formats served.
    enum Format: String, Sendable, CaseIterable {
        case wav, pcm, opus, mp3, aac, flac

        /// The response's `Content-Type`.
        var contentType: String {
            switch self {
            case .wav: "audio/wav"
            case .pcm: "audio/pcm"
            case .opus: "audio/ogg; codecs=opus"
            case .mp3: "audio/mpeg"
            case .aac: "audio/aac"
            case .flac: "audio/flac"
            }
        }
    }

    /// The JSON body as sent.
    struct Body: Decodable, Sendable {
        var model: String
        var input: String
        var voice: String
        var responseFormat: String?
        var speed: Double?
        var instructions: String?
        var streamFormat: String?
        /// Earshot's: the input's language (ISO 639-1 or BCP 47); detected from the text when absent.
        var language: String?

        enum CodingKeys: String, CodingKey {
            case model, input, voice, speed, instructions, language
            case responseFormat = "response_format"
            case streamFormat = "stream_format"
        }
    }

    /// The speech models accepted (OpenAI's names; every one is the configured provider).
    static let models = ["tts-1", "tts-1-hd", "gpt-4o-mini-tts"]
    /// OpenAI's limit on `input`, in characters.
    static let maxInput = 4096

    var model: String
    var format: Format
    var speech: SpeechRequest

    /// True for `en`, `yue`, `pt-BR`, `zh_Hant_TW`: two or three letters, then subtags of one to eight letters or
    /// digits (the `language` pattern of docs/openapi.json).
    static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard let first = parts.first, (2...3).contains(first.count),
            first.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic })
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count)
                && part.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
                }
        }
    }

    /// Checks `body`, throwing 400 `INVALID_ARGUMENT` with what was wrong and what to send instead.
    init(_ body: Body) throws(PlatformError) {
        guard Self.models.contains(body.model) else {
            throw PlatformError.invalidArgument(
                "model \"\(body.model.prefix(32))\" is not a speech model; use \(Self.models.joined(separator: ", "))")
        }
        model = body.model
        guard let voice = StandardVoice.named(body.voice) else {
            throw PlatformError.invalidArgument(
                "voice \"\(body.voice.prefix(32))\" is not offered; use one of \(StandardVoice.list)")
        }
        let formatName = body.responseFormat ?? "wav"
        let served = Format.allCases.map(\.rawValue).joined(separator: ", ")
        guard let format = Format(rawValue: formatName) else {
            throw PlatformError.invalidArgument(
                "response_format \"\(formatName.prefix(32))\" is unknown; use \(served)")
        }
        self.format = format
        guard !body.input.allSatisfy(\.isWhitespace) else {
            throw PlatformError.invalidArgument("input is empty; send the text to speak")
        }
        // Counted in Unicode scalars, as JSON Schema's maxLength counts (docs/openapi.json).
        let length = body.input.unicodeScalars.count
        guard length <= Self.maxInput else {
            throw PlatformError.invalidArgument(
                "input is \(length) characters; the limit is \(Self.maxInput): split the text and send the parts one "
                    + "by one")
        }
        let speed = body.speed ?? 1
        guard SpeechRequest.speeds.contains(speed) else {
            throw PlatformError.invalidArgument("speed must be between 0.25 and 4.0 (1 is normal)")
        }
        if body.instructions != nil, body.model != "gpt-4o-mini-tts" {
            throw PlatformError.invalidArgument(
                "instructions need model gpt-4o-mini-tts (tts-1 and tts-1-hd take none)")
        }
        if let stream = body.streamFormat, stream != "audio" {
            throw PlatformError.invalidArgument(
                "stream_format \"\(stream.prefix(16))\" is not served; Earshot sends the audio whole (stream_format "
                    + "audio)")
        }
        if let language = body.language, !Self.isLanguageTag(language) {
            throw PlatformError.invalidArgument(
                "language \"\(language.prefix(35))\" is not an ISO 639-1 code or BCP 47 tag (examples: en, fr, pt-BR)")
        }
        speech = SpeechRequest(
            text: body.input, language: body.language ?? LanguageDetector.detect(body.input), voice: voice.rawValue,
            speed: speed, instructions: body.instructions)
    }
}
