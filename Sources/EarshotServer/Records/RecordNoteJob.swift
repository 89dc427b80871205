import EarshotAPI
import EarshotCore
import EarshotNotes
import EarshotSpeech
import EarshotStore
import Foundation

/// The `record-note` job kind: summaries (task 1) and transcript translations (task 2) of a record, made by the
/// configured ``NoteProcessing``. Input the processor refuses (an unsupported language: `INVALID_INPUT`), a missing
/// language model (`NOT_CONFIGURED`) and output that fails the quality gate (`LOW_QUALITY_OUTPUT`: a translation in
/// the wrong language, looping or describing itself) fail at once with a code and a message saying what to
/// configure; a model that is down or slow is retried with backoff. A result that passes with findings succeeds
/// with them as its warnings. On success ``RecordTasks/applyFinal(_:_:)`` copies the result into the record in the
/// same transaction.
struct RecordNoteJob: JobKind {
    static let name = "record-note"
    var name: String { Self.name }

    let policy: JobPolicy
    let metadata: any MetadataStore
    let processor: any NoteProcessing

    /// Runs the processor on the record's transcript and returns the result JSON.
    func run(_ job: Job, context: JobContext) async throws -> String {
        let payload = try JSONDecoder().decode(RecordTasks.NotePayload.self, from: Data(job.payload.utf8))
        guard
            let row = try await metadata.read({ db in
                try db.queryFirst(
                    "SELECT \(RecordRow.columns) FROM records WHERE id = ?", payload.recordID
                ).map { try $0.decode(RecordRow.self) }
            })
        else { throw TaskFailure.failure(.invalidInput, "record \(payload.recordID) no longer exists") }
        guard let transcript = try row.transcript() else {
            throw TaskFailure.failure(
                .invalidInput, "record \(payload.recordID) has no transcript; run task_type 0 first")
        }
        let names = row.speakerNames
        let segments = transcript.segments.map {
            NoteSegment(
                startMs: $0.startMs, endMs: $0.endMs, speaker: $0.speaker.map { names[$0] ?? $0 }, text: $0.text)
        }
        context.report(stage: "STARTED")
        let encoder = TranscriptionService.encoder
        switch payload.taskType {
        case 1:
            let summary = try await processor.summarize(segments, language: transcript.language)
            return String(decoding: try encoder.encode(summary), as: UTF8.self)
        case 2:
            guard let target = payload.targetLanguage else {
                throw TaskFailure.failure(.invalidInput, "translation task without a target language")
            }
            let translation = try await processor.translate(segments, from: transcript.language, to: target)
            return String(decoding: try encoder.encode(translation), as: UTF8.self)
        default:
            throw TaskFailure.failure(.invalidInput, "task_type \(payload.taskType) is not a record-note task")
        }
    }

    /// Wrong input, missing configuration and output that fails the quality gate end the task at once with a
    /// code; an unavailable model is retried with backoff.
    func failure(for error: any Error, job: Job) -> JobQueue.Failure {
        if let error = error as? NotesError, let code = Self.permanentCode(error) {
            return TaskFailure.permanent(code, error.message)
        }
        return .retry(reason: "\(error)", attempt: job.attempts, base: policy.retryDelay)
    }

    /// The wire code of an error retrying cannot help with (the input, the configuration or the model's ability is
    /// wrong, not its availability); nil for errors worth retrying.
    static func permanentCode(_ error: NotesError) -> ErrorCode? {
        switch error.code {
        case .invalidInput, .unsupportedLanguage: .invalidInput
        // Includes "no language model configured" (llm-managed off and no llm-base-url).
        case .invalidConfiguration: .notConfigured
        case .lowQuality: .lowQualityOutput
        default: nil
        }
    }

    func finished(_ db: any SQLDatabase, _ job: Job) throws {
        try RecordTasks.applyFinal(db, job)
    }
}
