import EarshotAPI
import EarshotAudio
import EarshotCore
import EarshotDiarization
import EarshotHTTP
import EarshotModels
import EarshotSpeech
import Foundation
import Synchronization

/// OpenAI-compatible `POST /v1/audio/transcriptions` and `/v1/audio/translations` (multipart/form-data in, the
/// transcript out, whole or as Server-Sent Events) and `GET /v1/models`, with a partner token as Bearer. An
/// unmodified OpenAI client works with its base URL set to `<server>/v1` and a partner token as its API key.
///
/// The parameters Earshot honours are parsed by ``OpenAIRequest`` (any other is a 400 naming it); bodies are
/// shaped by ``OpenAIResponses``. The file is streamed to a spool file while the form is parsed, and decoded by the
/// production file pipeline (WAV tiers included). `diarized_json` labels speakers with the same attribution as
/// tasks (`A`, `B`, … or the names of `known_speaker_names[]`). `stream=true` answers `text/event-stream`:
/// a `transcript.text.delta` per segment as it is decoded, `transcript.text.segment` per speaker segment for
/// `diarized_json`, then `transcript.text.done`; an error after the headers is sent as an `error` event. Earshot's
/// `store=true` keeps the audio and its transcript as a record (named in `Earshot-Record-Id`, or in the done event's
/// `record_id` when streaming).
///
/// Decoding and recognition run under ``DecodeAdmission``: `openai-concurrency` requests at once, as many more
/// waiting up to `openAIMaxWait`, the rest answered 429 `RATE_LIMITED` with `Retry-After` (a stream takes its slot
/// before its headers, so it is refused the same way).
struct OpenAIRoutes: Sendable {
    let engines: FileTranscriber
    /// Where `store=true` keeps the audio and its record.
    let records: RecordsService
    let admission: DecodeAdmission
    /// Speaker attribution for `diarized_json`.
    let speakers: SpeakerModels
    let maxFileSize: Int
    let spoolDirectory: String

    /// The diarizer's label template for OpenAI requests (turned into `A`, `B`, …).
    static let speakerTemplate = "Speaker {n}"

    func register(on routes: APIRoutes) {
        for (path, task) in [
            (APIPath.openAITranscriptions, TranscriptionOptions.Task.transcribe),
            (APIPath.openAITranslations, .translate),
        ] {
            routes.post(path, .partner, body: .stream(limit: maxFileSize + (64 << 10))) { request, _, caller in
                try await handle(request, task: task, caller: caller)
            }
        }
        OpenAIModels().register(on: routes)
    }

    /// The parsed form.
    struct Form {
        var fields: [String: [String]] = [:]
        var file: URL?
        var filename: String?

        func value(_ name: String) -> String? { fields[name]?.last }
        func values(_ name: String) -> [String] { fields[name] ?? [] }
    }

    private func handle(_ request: Request, task: TranscriptionOptions.Task, caller: Principal) async throws
        -> Response
    {
        guard case .stream(let body) = request.body else {
            throw PlatformError.invalidArgument("send the form as multipart/form-data")
        }
        let form = try await parse(body, contentType: request.headers["Content-Type"])
        var keepSpool = false
        defer { if let file = form.file, !keepSpool { try? FileManager.default.removeItem(at: file) } }
        guard let file = form.file else {
            throw PlatformError.invalidArgument("the form has no `file` field; attach the audio as `file`")
        }
        let engines = self.engines
        let parsed = try await OpenAIRequest(form, task: task) { tier in try await engines.engine(for: tier).options }
        let (engine, _, _) = try await engines.engine(for: parsed.tier)
        let filetype = Self.filetype(form.filename)
        let name = form.filename.flatMap { (try? UploadService.originalName($0)) ?? nil } ?? "audio.\(filetype)"
        let job = Decode(
            routes: self, file: file, filetype: filetype, name: name, originalName: form.filename, engine: engine,
            request: parsed, task: task, caller: caller)
        if parsed.stream {
            // The slot is taken before the headers, so an overloaded server still answers 429.
            let start = try await admission.enter()
            keepSpool = true
            return .events { [admission] writer in
                defer { try? FileManager.default.removeItem(at: file) }
                do {
                    try await job.stream(to: writer)
                } catch {
                    await admission.leave(since: start)
                    throw error
                }
                await admission.leave(since: start)
            }
        }
        let (transcript, recordID) = try await admission.run { try await job.run(events: nil) }
        var response = try OpenAIResponses.response(
            transcript, request: parsed, task: task, speakerTemplate: Self.speakerTemplate)
        if let recordID { response.headers["Earshot-Record-Id"] = recordID }
        return response
    }

    /// One request's decode: the audio, the recognition (with speakers for `diarized_json`), the kept record.
    struct Decode: Sendable {
        let routes: OpenAIRoutes
        let file: URL
        let filetype: String
        let name: String
        let originalName: String?
        let engine: SpeechEngine
        let request: OpenAIRequest
        let task: TranscriptionOptions.Task
        let caller: Principal

        /// Decodes, transcribes (calling `events` with each segment as it is decoded), labels speakers and keeps
        /// the record when asked; returns the transcript and the kept record's id.
        func run(events: (@Sendable (Transcript.Segment) async throws -> Void)?) async throws -> (Transcript, String?) {
            let audio: FileTranscriber.PreparedAudio
            do {
                audio = try await routes.engines.prepareAudio(file, type: filetype, displayName: name)
            } catch let error as AudioError {
                throw PlatformError.invalidArgument(
                    "the file could not be decoded as audio (\(error.code)): "
                        + error.message.replacingOccurrences(of: file.path, with: name))
            }
            let diarize = request.format == .diarizedJSON
            var options = request.options
            if diarize { options = SpeakerAttribution.prepare(options) }
            var transcript: Transcript?
            do {
                for try await event in engine.transcribe(samples: audio.samples, options: options) {
                    switch event {
                    case .segment(let segment): try await events?(segment)
                    case .completed(let result): transcript = result
                    default: break
                    }
                }
            } catch let error as SpeechError where error.code == .invalidOption || error.code == .invalidAudio {
                throw PlatformError.invalidArgument(error.message)
            }
            guard var transcript else {
                try Task.checkCancellation()
                throw SpeechError(.decodeFailed, "transcription ended without a result")
            }
            transcript.warnings = audio.warnings + transcript.warnings
            if diarize { transcript = try await attribute(transcript, samples: audio.samples) }
            var recordID: String?
            if request.store {
                recordID = try await routes.records.keep(
                    file, filetype: filetype, name: originalName, for: caller, transcript: transcript,
                    samples: audio.samples, model: request.tier, task: task.rawValue)
            }
            return (transcript, recordID)
        }

        /// Labels speakers, naming those that match a known speaker's sample.
        private func attribute(_ transcript: Transcript, samples: [Float]) async throws -> Transcript {
            let attribution = try await routes.speakers.attribution()
            var options = SpeakerAttribution.Options(labelTemplate: OpenAIRoutes.speakerTemplate)
            for known in request.knownSpeakers {
                let ext = known.mediaType.split(separator: "/").last.map(String.init) ?? "wav"
                let sample = URL(fileURLWithPath: routes.spoolDirectory)
                    .appendingPathComponent("openai_" + Identifier.make(prefix: "v"))
                try known.audio.write(to: sample)
                defer { try? FileManager.default.removeItem(at: sample) }
                let audio: FileTranscriber.PreparedAudio
                do {
                    audio = try await routes.engines.prepareAudio(
                        sample, type: FileTypes.isWellFormed(ext) ? ext : nil, displayName: "sample of \(known.name)")
                } catch let error as AudioError {
                    throw PlatformError.invalidArgument(
                        "known_speaker_references[] for \(known.name) is not audio (\(error.code))")
                }
                options.voiceprints.append(try await attribution.voiceprint(named: known.name, samples: audio.samples))
            }
            return try await attribution.attribute(transcript, samples: samples, options: options)
        }

        /// The transcription as Server-Sent Events: deltas as segments are decoded, speaker segments, then done.
        func stream(to writer: ResponseWriter) async throws {
            let first = Mutex(true)
            let logprobs = request.logprobs
            do {
                let (transcript, recordID) = try await run { segment in
                    guard !segment.text.isEmpty else { return }
                    let isFirst = first.withLock { value in
                        defer { value = false }
                        return value
                    }
                    try await writer.write(
                        try OpenAIResponses.event(
                            OpenAIResponses.Delta(
                                delta: OpenAIResponses.delta(segment, first: isFirst),
                                logprobs: logprobs ? OpenAIResponses.logprobs([segment]) : nil)))
                }
                if request.format == .diarizedJSON {
                    for segment in OpenAIResponses.diarizedSegments(transcript, template: OpenAIRoutes.speakerTemplate) {
                        try await writer.write(try OpenAIResponses.event(segment))
                    }
                }
                try await writer.write(
                    try OpenAIResponses.event(
                        OpenAIResponses.Done(
                            text: transcript.text,
                            logprobs: logprobs ? OpenAIResponses.logprobs(transcript.segments) : nil,
                            recordID: recordID)))
            } catch let error as HTTPError where error.code == "CLIENT_CLOSED" {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                // The headers are gone: report the error in-band, as OpenAI's streams do.
                let mapped = ErrorTable.map(error)
                try await writer.write(
                    try OpenAIResponses.event(
                        OpenAIResponses.StreamError(
                            error: .init(
                                code: mapped?.code ?? "INTERNAL",
                                message: mapped?.message ?? "the transcription failed: \(error)"))))
            }
        }
    }

    /// The lowercase extension of the form's file name (what the pipeline decodes by), or `bin` when it has none.
    static func filetype(_ filename: String?) -> String {
        let ext = ((filename ?? "") as NSString).pathExtension.lowercased()
        return FileTypes.isWellFormed(ext) ? ext : "bin"
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
                            // Speaker samples are data URLs of audio; every other field is short.
                            let limit = current?.name == "known_speaker_references[]" ? 8 << 20 : 64 << 10
                            guard value.count <= limit else {
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
}
