import EarshotAPI
import EarshotAudio
import EarshotCore
import EarshotHTTP
import EarshotModels
import EarshotSpeech
import Foundation

/// OpenAI-compatible `POST /v1/audio/transcriptions` and `/v1/audio/translations`: multipart/form-data in, the
/// transcript out, synchronously, with a partner token as Bearer. An unmodified OpenAI client works with its base
/// URL set to `<server>/v1` and a partner token as its API key.
///
/// Form fields: `file` (required), `model` (a tier or an alias of one, ``ModelTier/named(_:)``), `language`,
/// `prompt`, `response_format` (`json`, `text`, `srt`, `vtt`, `verbose_json`), `temperature`,
/// `timestamp_granularities[]` (`segment`, `word`). The file is streamed to a spool file while the form is parsed.
///
/// Decoding and recognition run under ``DecodeAdmission``: `openai-concurrency` requests at once, as many more
/// waiting up to `openAIMaxWait`, the rest answered 429 `RATE_LIMITED` with `Retry-After`.
struct OpenAIRoutes: Sendable {
    let tokens: TokenService
    let engines: FileTranscriber
    let admission: DecodeAdmission
    let maxFileSize: Int
    let spoolDirectory: String

    func register(on router: some RouteBuilder) {
        for (path, task) in [
            (APIPath.openAITranscriptions, TranscriptionOptions.Task.transcribe),
            (APIPath.openAITranslations, .translate),
        ] {
            router.post(path, body: .stream(limit: maxFileSize + (64 << 10))) { request, _ in
                let caller = try await tokens.authenticate(request)
                try caller.requirePartner("the OpenAI-compatible endpoints")
                return try await handle(request, task: task)
            }
        }
    }

    /// The parsed form.
    struct Form {
        var fields: [String: [String]] = [:]
        var file: URL?
        var filename: String?

        func value(_ name: String) -> String? { fields[name]?.last }
    }

    private func handle(_ request: Request, task: TranscriptionOptions.Task) async throws -> Response {
        guard case .stream(let body) = request.body else {
            throw PlatformError.invalidArgument("send the form as multipart/form-data")
        }
        let form = try await parse(body, contentType: request.headers["Content-Type"])
        defer { if let file = form.file { try? FileManager.default.removeItem(at: file) } }
        guard let file = form.file else {
            throw PlatformError.invalidArgument("the form has no `file` field; attach the audio as `file`")
        }
        guard let model = form.value("model") else {
            throw PlatformError.invalidArgument("the form has no `model` field; use whisper-1, asr-fast or asr-pro")
        }
        guard let tier = ModelTier.named(model)?.name else {
            throw PlatformError.invalidArgument(ModelTier.notOfferedMessage(model))
        }
        let format = form.value("response_format") ?? "json"
        guard ["json", "text", "srt", "vtt", "verbose_json"].contains(format) else {
            throw PlatformError.invalidArgument(
                "response_format \"\(format)\" is not supported; use json, text, srt, vtt or verbose_json")
        }
        let (engine, tierOptions, _) = try await engines.engine(for: tier)
        var options = tierOptions
        options.task = task
        if task == .transcribe, let language = form.value("language"), !language.isEmpty {
            guard SpeechModel.isKnownLanguage(language.lowercased()) else {
                throw PlatformError.invalidArgument("language \"\(language)\" is unknown; use an ISO-639-1 code")
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
        let granularities = Set(
            form.fields["timestamp_granularities[]", default: []] + form.fields["timestamp_granularities", default: []])
        guard granularities.isSubset(of: ["segment", "word"]) else {
            throw PlatformError.invalidArgument("timestamp_granularities[] accepts segment and word")
        }
        if granularities.contains("word") {
            guard format == "verbose_json" else {
                throw PlatformError.invalidArgument("word timestamps need response_format verbose_json")
            }
            options.wordTimestamps = true
        }
        let chosen = options
        let transcript = try await admission.run { try await Self.transcribe(file, engine: engine, options: chosen) }
        return try Self.response(transcript, format: format, task: task, words: granularities.contains("word"))
    }

    /// Decodes the spooled file and recognises it (the part that holds a decode slot).
    private static func transcribe(
        _ file: URL, engine: SpeechEngine, options: TranscriptionOptions
    ) async throws -> Transcript {
        let samples: [Float]
        do {
            let decoder = try await AudioDecoder.open(contentsOf: file, configuration: .init(allowTruncated: true))
            samples = try await decoder.decodeAll()
        } catch let error as AudioError {
            throw PlatformError.invalidArgument(
                "the file could not be decoded as audio (\(error.code)); send WAV, MP3, M4A, FLAC, Ogg/Opus or WebM")
        }
        let transcript: Transcript
        do {
            transcript = try await engine.transcript(of: samples, options: options)
        } catch let error as SpeechError where error.code == .invalidOption || error.code == .invalidAudio {
            throw PlatformError.invalidArgument(error.message)
        }
        return transcript
    }

    private func parse(_ body: BodyStream, contentType: String?) async throws -> Form {
        var parser = try MultipartFormData(contentType: contentType)
        var form = Form()
        var current: MultipartFormData.Part?
        var value: [UInt8] = []
        var sink: FileHandle?
        defer { try? sink?.close() }
        do {
            for try await chunk in body {
                for event in try parser.feed(chunk) {
                    switch event {
                    case .part(let part):
                        current = part
                        value = []
                        if part.name == "file" {
                            guard form.file == nil else {
                                throw PlatformError.invalidArgument("send one `file` field")
                            }
                            try FileManager.default.createDirectory(
                                atPath: spoolDirectory, withIntermediateDirectories: true)
                            let url = URL(fileURLWithPath: spoolDirectory)
                                .appendingPathComponent("openai_" + Identifier.make(prefix: "f"))
                            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                                throw PlatformError.invalidArgument("cannot spool the upload")
                            }
                            form.file = url
                            form.filename = part.filename
                            sink = try FileHandle(forWritingTo: url)
                        }
                    case .data(let bytes):
                        if current?.name == "file" {
                            try sink?.write(contentsOf: bytes)
                        } else {
                            value += bytes
                            guard value.count <= 64 << 10 else {
                                throw PlatformError.invalidArgument("form field `\(current?.name ?? "")` is too long")
                            }
                        }
                    case .end:
                        if let part = current, part.name != "file" {
                            form.fields[part.name, default: []].append(String(decoding: value, as: UTF8.self))
                        } else {
                            try sink?.close()
                            sink = nil
                        }
                        current = nil
                    }
                }
            }
            try parser.finish()
        } catch {
            if let file = form.file { try? FileManager.default.removeItem(at: file) }
            throw error
        }
        return form
    }

    // MARK: Responses

    private struct Simple: Encodable {
        var text: String
    }

    private struct Verbose: Encodable {
        struct Segment: Encodable {
            var id: Int
            var seek: Int
            var start: Double
            var end: Double
            var text: String
            var tokens: [Int]
            var temperature: Double
            var avg_logprob: Double
            var compression_ratio: Double
            var no_speech_prob: Double
        }
        struct Word: Encodable {
            var word: String
            var start: Double
            var end: Double
        }
        var task: String
        var language: String
        var duration: Double
        var text: String
        var segments: [Segment]
        var words: [Word]?
    }

    static func response(
        _ transcript: Transcript, format: String, task: TranscriptionOptions.Task, words: Bool
    ) throws -> Response {
        switch format {
        case "text":
            return .text(transcript.text + "\n", contentType: "text/plain; charset=utf-8")
        case "srt":
            return .text(
                TranscriptFormatter(format: .srt).string(for: transcript), contentType: "text/plain; charset=utf-8")
        case "vtt":
            return .text(
                TranscriptFormatter(format: .vtt).string(for: transcript), contentType: "text/plain; charset=utf-8")
        case "verbose_json":
            let seconds = { (ms: Int) in Double(ms) / 1000 }
            let finite = { (value: Double) in value.isFinite ? value : 0 }
            return try .json(
                Verbose(
                    task: task.rawValue, language: transcript.language, duration: seconds(transcript.durationMs),
                    text: transcript.text,
                    segments: transcript.segments.enumerated().map { index, segment in
                        .init(
                            id: index, seek: 0, start: seconds(segment.startMs), end: seconds(segment.endMs),
                            text: segment.text, tokens: [], temperature: 0,
                            avg_logprob: finite(segment.averageLogProbability), compression_ratio: 0,
                            no_speech_prob: finite(segment.noSpeechProbability))
                    },
                    words: words
                        ? transcript.segments.flatMap(\.words).map {
                            .init(word: $0.text, start: seconds($0.startMs), end: seconds($0.endMs))
                        } : nil))
        default:
            return try .json(Simple(text: transcript.text))
        }
    }
}
