import EarshotAPI
import EarshotAudio
import EarshotCore
import EarshotDiarization
import EarshotModels
import EarshotSpeech
import EarshotStore
import Foundation

/// The transcription job kind: decodes a stored file with the production file pipeline (WAV tiers by the file's
/// stored type, truncated recorder uploads kept), measures the record's audio (duration and amplitude envelope) the
/// first time, transcribes it (reporting `STARTED`, `PROGRESS` and the percentage), labels speakers when asked, and
/// returns the transcript JSON. When the job becomes final its task webhook is recorded and, on success, its
/// transcript becomes its record's.
struct TranscriptionJob: JobKind {
    static let name = "transcription"
    var name: String { Self.name }

    let policy: JobPolicy
    let metadata: any MetadataStore
    let blobs: any BlobStore
    let engines: FileTranscriber
    /// Speaker attribution for tasks that ask for diarization.
    let speakers: SpeakerModels
    let webhooks: Webhooks
    /// Audio longer than this is transcribed in consecutive windows of this length, decoded as they are needed
    /// (`transcription-window`): memory follows the window, not the recording.
    var window: Duration = .seconds(1800)
    /// Longer audio is refused, naming the setting (`max-audio-duration`).
    var maxDuration: Duration = .seconds(8 * 3600)

    func run(_ job: Job, context: JobContext) async throws -> String {
        let payload = try TranscriptionService.payload(job)
        let (file, recordID) = try await metadata.read { db in
            (try UploadService.file(db, id: payload.fileID), try Library.record(ofJob: job.id, db)?.id)
        }
        guard let file else { throw JobFailure.permanent("file \(payload.fileID) no longer exists") }
        // From the blob's file: the stored file itself, or a temporary copy when the blob store is S3.
        return try await blobs.withLocalFile(for: try BlobKey(file.blobKey)) { path in
            try await transcribe(path, file: file, recordID: recordID, job: job, payload: payload, context: context)
        }
    }

    /// Transcribes the local file `path` of the task's `file`.
    private func transcribe(
        _ path: URL, file: FileRecord, recordID: String?, job: Job, payload: TranscriptionPayload,
        context: JobContext
    ) async throws -> String {
        let (engine, tuned, _) = try await engines.engine(for: payload.model)
        var options = tuned
        options.language = payload.language
        options.task = TranscriptionOptions.Task(rawValue: payload.task) ?? .transcribe
        // The production file pipeline, by the file's stored type (blobs have no extension).
        let decoder: AudioDecoder
        var warnings: [String]
        do {
            (decoder, warnings) = try await engines.openAudio(path, type: file.filetype, displayName: file.displayName)
        } catch let error as AudioError where error.code != .io {
            throw Self.undecodable(error, path: path, name: file.displayName)
        }
        if let declared = decoder.info.duration, declared > maxDuration {
            throw JobFailure.permanent(Self.tooLong(declared, limit: maxDuration))
        }
        if let declared = decoder.info.duration, declared > window {
            return try await transcribeInWindows(
                decoder, warnings: warnings, options: options, engine: engine, recordID: recordID, payload: payload,
                context: context)
        }
        let samples: [Float]
        do {
            samples = try await decoder.decodeAll()
        } catch let error as AudioError where error.code != .io {
            throw Self.undecodable(error, path: path, name: file.displayName)
        }
        if decoder.report.isTruncated {
            warnings.append("the file ends early (truncated); transcribed the \(samples.count / 16) ms that are there")
        }
        if let recordID {
            try await metadata.write { db in
                try Library.measure(db, recordID: recordID, samples: samples, at: JobQueue.wallClock())
            }
        }
        context.report(stage: TaskStatus.started.rawValue)
        let diarization = payload.diarization.flatMap { $0.enabled ? $0 : nil }
        if diarization != nil { options = SpeakerAttribution.prepare(options) }
        for try await event in engine.transcribe(samples: samples, options: options) {
            switch event {
            case .progress(let fraction):
                context.report(progress: fraction, stage: TaskStatus.progress.rawValue)
            case .completed(var transcript):
                if let diarization {
                    transcript = try await attributeSpeakers(
                        transcript, samples: samples, diarization: diarization, job: job, payload: payload)
                }
                transcript.warnings = warnings + transcript.warnings
                return String(decoding: try TranscriptionService.encoder.encode(transcript), as: UTF8.self)
            default:
                break
            }
        }
        try Task.checkCancellation()
        throw SpeechError(.decodeFailed, "transcription ended without a result")
    }

    /// Long audio (issue 13, finding 9): decodes and transcribes one ``window`` at a time, shifting each window's
    /// times by where it starts, so memory holds one window (30 min of 16 kHz samples: 115 MB) however long the
    /// recording. The record's duration and envelope are built as the windows pass. Speakers are not labelled
    /// across windows (their labels would not agree from one window to the next): a warning says so.
    private func transcribeInWindows(
        _ decoder: AudioDecoder, warnings: [String], options: TranscriptionOptions, engine: SpeechEngine,
        recordID: String?, payload: TranscriptionPayload, context: JobContext
    ) async throws -> String {
        let windowSamples = Int(window.milliseconds) * AudioDecoder.sampleRate / 1000
        let limitSamples = Int(maxDuration.milliseconds) * AudioDecoder.sampleRate / 1000
        let expected = decoder.info.duration.map { Int($0.milliseconds) * AudioDecoder.sampleRate / 1000 }
        var envelope = EnvelopeBuilder()
        var result: Transcript?
        var decoded = 0
        context.report(stage: TaskStatus.started.rawValue)
        for try await samples in decoder.chunks(maxSamples: windowSamples) {
            let offsetMs = decoded * 1000 / AudioDecoder.sampleRate
            let done = decoded
            decoded += samples.count
            guard decoded <= limitSamples else {
                throw JobFailure.permanent(Self.tooLong(nil, limit: maxDuration))
            }
            envelope.append(samples)
            for try await event in engine.transcribe(samples: samples, options: options) {
                switch event {
                case .progress(let fraction):
                    if let expected, expected > 0 {
                        let overall = (Double(done) + fraction * Double(samples.count)) / Double(expected)
                        context.report(progress: overall, stage: TaskStatus.progress.rawValue)
                    }
                case .completed(let part):
                    result = Self.appending(part, to: result, offsetMs: offsetMs)
                default:
                    break
                }
            }
            try Task.checkCancellation()
        }
        guard var transcript = result else {
            throw SpeechError(.decodeFailed, "transcription ended without a result")
        }
        transcript.durationMs = decoded * 1000 / AudioDecoder.sampleRate
        var notes = warnings
        if decoder.report.isTruncated {
            notes.append("the file ends early (truncated); transcribed the \(transcript.durationMs) ms that are there")
        }
        if payload.diarization?.enabled == true {
            notes.append(
                "speakers are not labelled in recordings longer than transcription-window "
                    + "(\(Int(window.milliseconds / 60_000)) min); this one was transcribed in windows")
        }
        transcript.warnings = notes + transcript.warnings
        if let recordID {
            let (durationMs, points) = (transcript.durationMs, envelope.finish().encoded())
            try await metadata.write { db in
                try Library.measure(
                    db, recordID: recordID, durationMs: durationMs, envelope: points, at: JobQueue.wallClock())
            }
        }
        return String(decoding: try TranscriptionService.encoder.encode(transcript), as: UTF8.self)
    }

    /// `window` appended to `transcript` with its times shifted by `offsetMs`.
    static func appending(_ window: Transcript, to transcript: Transcript?, offsetMs: Int) -> Transcript {
        var shifted = window
        shifted.segments = window.segments.map { segment in
            var segment = segment
            segment.startMs += offsetMs
            segment.endMs += offsetMs
            segment.words = segment.words.map { word in
                var word = word
                word.startMs += offsetMs
                word.endMs += offsetMs
                return word
            }
            return segment
        }
        guard var transcript else { return shifted }
        transcript.segments += shifted.segments
        transcript.speechMs += shifted.speechMs
        return transcript
    }

    /// The message of a file the decoder refused, in the user's terms: their file's name, never the server's path.
    static func undecodable(_ error: AudioError, path: URL, name: String) -> JobFailure {
        .permanent(
            "the audio could not be decoded (\(error.code)): "
                + error.message.replacingOccurrences(of: path.path, with: name))
    }

    /// The message of audio over `max-audio-duration`.
    static func tooLong(_ duration: Duration?, limit: Duration) -> String {
        let length = duration.map { "is \(Int($0.milliseconds / 60_000)) min long, " } ?? "is "
        return "the recording \(length)longer than this server's max-audio-duration "
            + "(\(Int(limit.milliseconds / 60_000)) min); ask the operator to raise it, or split the recording"
    }

    /// Labels the transcript's speakers (split at word level), naming those that match one of the task user's
    /// voiceprints.
    private func attributeSpeakers(
        _ transcript: Transcript, samples: [Float], diarization: TranscriptionTaskRequest.Diarization, job: Job,
        payload: TranscriptionPayload
    ) async throws -> Transcript {
        var options = TranscriptionService.attributionOptions(diarization)
        if let userID = payload.userID ?? job.subject {
            options.voiceprints = try await VoiceprintService.voiceprints(
                in: metadata, partnerID: job.tenant, userID: userID)
        }
        let attributed = try await speakers.attribution().attribute(transcript, samples: samples, options: options)
        try Task.checkCancellation()
        return attributed
    }

    /// Bad input fails at once; anything else is retried with exponential backoff.
    func failure(for error: any Error, job: Job) -> JobQueue.Failure {
        switch error {
        case let error as SpeechError where error.code == .invalidAudio || error.code == .invalidOption:
            return .permanent(reason: "\(error)")
        case let error as DiarizationError where error.code != .cancelled:
            // Bad options or a missing speaker/VAD model: retrying changes nothing.
            return .permanent(reason: "speaker diarization failed: \(error.message)")
        default:
            return .retry(reason: "\(error)", attempt: job.attempts, base: policy.retryDelay)
        }
    }

    /// Records the task's webhook delivery and, on success, makes the transcript its record's.
    func finished(_ db: any SQLDatabase, _ job: Job) throws {
        try webhooks.enqueue(db, for: job)
        try RecordTasks.applyFinal(db, job)
    }
}
