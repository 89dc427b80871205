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

    func run(_ job: Job, context: JobContext) async throws -> String {
        let payload = try TranscriptionService.payload(job)
        let (file, recordID) = try await metadata.read { db in
            (try UploadService.file(db, id: payload.fileID), try Library.record(ofJob: job.id, db)?.id)
        }
        guard let file else { throw JobFailure.permanent("file \(payload.fileID) no longer exists") }
        let (engine, tuned, _) = try await engines.engine(for: payload.model)
        // The production file pipeline, by the file's stored type (blobs have no extension), from the blob's file (a
        // temporary copy when the blob store is S3).
        let audio: FileTranscriber.PreparedAudio = try await blobs.withLocalFile(for: try BlobKey(file.blobKey)) {
            path in
            do {
                return try await engines.prepareAudio(path, type: file.filetype, displayName: file.displayName)
            } catch let error as AudioError where error.code != .io {
                // Bad audio fails at once, in the user's terms: their file's name, never the server's path.
                throw JobFailure.permanent(
                    "the audio could not be decoded (\(error.code)): "
                        + error.message.replacingOccurrences(of: path.path, with: file.displayName))
            }
        }
        if let recordID {
            let samples = audio.samples
            try await metadata.write { db in
                try Library.measure(db, recordID: recordID, samples: samples, at: JobQueue.wallClock())
            }
        }
        context.report(stage: TaskStatus.started.rawValue)
        var options = tuned
        options.language = payload.language
        options.task = TranscriptionOptions.Task(rawValue: payload.task) ?? .transcribe
        let diarization = payload.diarization.flatMap { $0.enabled ? $0 : nil }
        if diarization != nil { options = SpeakerAttribution.prepare(options) }
        for try await event in engine.transcribe(samples: audio.samples, options: options) {
            switch event {
            case .progress(let fraction):
                context.report(progress: fraction, stage: TaskStatus.progress.rawValue)
            case .completed(var transcript):
                if let diarization {
                    transcript = try await attributeSpeakers(
                        transcript, samples: audio.samples, diarization: diarization, job: job, payload: payload)
                }
                transcript.warnings = audio.warnings + transcript.warnings
                return String(decoding: try TranscriptionService.encoder.encode(transcript), as: UTF8.self)
            default:
                break
            }
        }
        try Task.checkCancellation()
        throw SpeechError(.decodeFailed, "transcription ended without a result")
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
