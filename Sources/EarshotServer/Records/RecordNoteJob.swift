import EarshotCore
import EarshotNotes
import EarshotSpeech
import EarshotStore
import Foundation

/// The `record-note` job kind: summaries (task 1) and transcript translations (task 2) of a record, made by the
/// configured ``NoteProcessing``. Input the processor refuses (an unsupported language, no language model
/// configured for a translation) fails at once with its reason; a model that is down or slow is retried with
/// backoff. On success ``RecordTasks/applyFinal(_:_:)`` copies the result into the record in the same transaction.
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
        else { throw JobFailure.permanent("record \(payload.recordID) no longer exists") }
        guard let transcript = try row.transcript() else {
            throw JobFailure.permanent("record \(payload.recordID) has no transcript; run task_type 0 first")
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
                throw JobFailure.permanent("translation task without a target language")
            }
            let translation = try await processor.translate(segments, from: transcript.language, to: target)
            return String(decoding: try encoder.encode(translation), as: UTF8.self)
        default:
            throw JobFailure.permanent("task_type \(payload.taskType) is not a record-note task")
        }
    }

    /// Wrong input or configuration fails at once; an unavailable model is retried with backoff.
    func failure(for error: any Error, job: Job) -> JobQueue.Failure {
        if let error = error as? NotesError, Self.isPermanent(error) { return .permanent(reason: error.message) }
        return .retry(reason: "\(error)", attempt: job.attempts, base: policy.retryDelay)
    }

    /// Whether retrying cannot help: the input or the configuration is wrong, not the model's availability.
    static func isPermanent(_ error: NotesError) -> Bool {
        switch error.code {
        // invalidConfiguration includes "no language model configured" (llm-managed off and no llm-base-url).
        case .invalidInput, .unsupportedLanguage, .invalidConfiguration: true
        default: false
        }
    }

    func finished(_ db: any SQLDatabase, _ job: Job) throws {
        try RecordTasks.applyFinal(db, job)
    }
}
