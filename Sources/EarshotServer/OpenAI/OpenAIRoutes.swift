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
/// `timestamp_granularities[]` (`segment`, `word`), and Earshot's `store` (`true`: keep the audio and its
/// transcript as a record in the library; the response names it in `Earshot-Record-Id`). The file is streamed to
/// a spool file while the form is parsed, and decoded by the production file pipeline (WAV tiers included).
///
/// Decoding and recognition run under ``DecodeAdmission``: `openai-concurrency` requests at once, as many more
/// waiting up to `openAIMaxWait`, the rest answered 429 `RATE_LIMITED` with `Retry-After`.
struct OpenAIRoutes: Sendable {
    let engines: FileTranscriber
    /// Where `store=true` keeps the audio and its record.
    let records: RecordsService
    let admission: DecodeAdmission
    let maxFileSize: Int
    let spoolDirectory: String

    func register(on routes: APIRoutes) {
        for (path, task) in [
            (APIPath.openAITranscriptions, TranscriptionOptions.Task.transcribe),
            (APIPath.openAITranslations, .translate),
        ] {
            routes.post(path, .partner, body: .stream(limit: maxFileSize + (64 << 10))) { request, _, caller in
                try await handle(request, task: task, caller: caller)
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

    private func handle(_ request: Request, task: TranscriptionOptions.Task, caller: Principal) async throws
        -> Response
    {
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
        let store: Bool
        switch form.value("store")?.lowercased() {
        case nil, "false", "0": store = false
        case "true", "1": store = true
        case let other?: throw PlatformError.invalidArgument("store \"\(other.prefix(16))\" must be true or false")
        }
        let filetype = Self.filetype(form.filename)
        let name = form.filename.flatMap { (try? UploadService.originalName($0)) ?? nil } ?? "audio.\(filetype)"
        let chosen = options
        let (transcript, samples) = try await admission.run {
            try await transcribe(file, type: filetype, name: name, engine: engine, options: chosen)
        }
        var response = try Self.response(transcript, format: format, task: task, words: granularities.contains("word"))
        if store {
            let record = try await records.keep(
                file, filetype: filetype, name: form.filename, for: caller, transcript: transcript, samples: samples,
                model: tier, task: task.rawValue)
            response.headers["Earshot-Record-Id"] = record
        }
        return response
    }

    /// The lowercase extension of the form's file name (what the pipeline decodes by), or `bin` when it has none.
    static func filetype(_ filename: String?) -> String {
        let ext = ((filename ?? "") as NSString).pathExtension.lowercased()
        return FileTypes.isWellFormed(ext) ? ext : "bin"
    }

    /// Decodes the spooled file with the production file pipeline and recognises it (the part that holds a decode
    /// slot). Returns the samples too, for a record's envelope when the request keeps it.
    private func transcribe(
        _ file: URL, type: String, name: String, engine: SpeechEngine, options: TranscriptionOptions
    ) async throws -> (Transcript, [Float]) {
        let audio: FileTranscriber.PreparedAudio
        do {
            audio = try await engines.prepareAudio(file, type: type, displayName: name)
        } catch let error as AudioError {
            throw PlatformError.invalidArgument(
                "the file could not be decoded as audio (\(error.code)): "
                    + error.message.replacingOccurrences(of: file.path, with: name))
        }
        var transcript: Transcript
        do {
            transcript = try await engine.transcript(of: audio.samples, options: options)
        } catch let error as SpeechError where error.code == .invalidOption || error.code == .invalidAudio {
            throw PlatformError.invalidArgument(error.message)
        }
        transcript.warnings = audio.warnings
        return (transcript, audio.samples)
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
