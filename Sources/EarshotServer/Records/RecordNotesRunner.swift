import EarshotCore
import EarshotNotes
import EarshotSpeech
import EarshotStore
import Foundation

/// Runs `record-note` jobs (summaries and transcript translations) with the configured ``NoteProcessing``.
///
/// Claims one job at a time with a lease, heartbeats while the processor works, and finishes it with the result
/// JSON; ``RecordTasks/applyFinal(_:_:)`` copies the result into the record in the same transaction. Input the
/// processor refuses (an unsupported language, no language model configured for a translation) fails at once with
/// its reason; a model that is down or slow is retried with backoff. On cancellation (graceful shutdown) the job goes
/// back to the queue without counting the attempt. Expired leases are re-queued by the
/// transcription workers' reaper, which covers every job kind.
struct RecordNotesRunner: Sendable {
    struct Configuration: Sendable {
        var lease: Duration = .seconds(60)
        var retryDelay: Duration = .seconds(5)
        var pollInterval: Duration = .milliseconds(250)
    }

    let queue: JobQueue
    let metadata: any MetadataStore
    let processor: any NoteProcessing
    let configuration: Configuration
    let logger = Logger(label: "record-notes")
    let owner = Identifier.make(prefix: "wrk") + "-notes"

    /// Claims and runs jobs until cancelled.
    func run() async {
        while !Task.isCancelled {
            do {
                if let job = try await queue.claim(
                    kind: RecordTasks.noteKind, owner: owner, lease: configuration.lease)
                {
                    await process(job)
                    continue
                }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("claiming a record task failed", metadata: ["error": "\(error)"])
            }
            do { try await Task.sleep(for: configuration.pollInterval) } catch { return }
        }
    }

    private struct Permanent: Error, CustomStringConvertible {
        let description: String
    }

    private func process(_ job: Job) async {
        do {
            let result = try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask { try await produce(job) }
                group.addTask {
                    while true {
                        try await Task.sleep(for: configuration.lease / 3)
                        guard try await queue.heartbeat(job.id, owner: owner, lease: configuration.lease) else {
                            throw CancellationError()
                        }
                    }
                }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let result { return result }
                }
                throw CancellationError()
            }
            if try await queue.complete(job.id, owner: owner, result: result) {
                logger.info("record task succeeded", metadata: ["task": job.id])
            }
        } catch is CancellationError where Task.isCancelled {
            await Task.detached { try? await queue.release(job.id, owner: owner) }.value
        } catch is CancellationError {
            logger.notice("record task stopped: revoked or lease lost", metadata: ["task": job.id])
        } catch {
            let failure: JobQueue.Failure =
                if let error = error as? Permanent {
                    .permanent(reason: error.description)
                } else if let error = error as? NotesError, Self.isPermanent(error) {
                    .permanent(reason: error.message)
                } else {
                    .retry(reason: "\(error)", attempt: job.attempts, base: configuration.retryDelay)
                }
            let after = try? await queue.fail(job.id, owner: owner, failure)
            logger.warning(
                "record task attempt failed",
                metadata: ["task": job.id, "state": after?.state.rawValue ?? "lost", "error": "\(error)"])
        }
    }

    /// Runs the processor on the record's transcript and returns the result JSON.
    private func produce(_ job: Job) async throws -> String {
        let payload = try JSONDecoder().decode(RecordTasks.NotePayload.self, from: Data(job.payload.utf8))
        guard
            let row = try await metadata.read({ db in
                try db.queryFirst(
                    "SELECT \(RecordRow.columns) FROM records WHERE id = ?", payload.recordID
                ).map { try $0.decode(RecordRow.self) }
            })
        else { throw Permanent(description: "record \(payload.recordID) no longer exists") }
        guard let transcript = try row.transcript() else {
            throw Permanent(description: "record \(payload.recordID) has no transcript; run task_type 0 first")
        }
        let names = row.speakerNames
        let segments = transcript.segments.map {
            NoteSegment(
                startMs: $0.startMs, endMs: $0.endMs, speaker: $0.speaker.map { names[$0] ?? $0 }, text: $0.text)
        }
        let encoder = TranscriptionService.encoder
        switch payload.taskType {
        case 1:
            let summary = try await processor.summarize(segments, language: transcript.language)
            return String(decoding: try encoder.encode(summary), as: UTF8.self)
        case 2:
            guard let target = payload.targetLanguage else {
                throw Permanent(description: "translation task without a target language")
            }
            let translation = try await processor.translate(segments, from: transcript.language, to: target)
            return String(decoding: try encoder.encode(translation), as: UTF8.self)
        default:
            throw Permanent(description: "task_type \(payload.taskType) is not a record-note task")
        }
    }

    /// Whether retrying cannot help: the input or the configuration is wrong, not the model's availability.
    static func isPermanent(_ error: NotesError) -> Bool {
        switch error.code {
        // invalidConfiguration includes "no language model configured" (llm-managed off and no llm-base-url).
        case .invalidInput, .unsupportedLanguage, .invalidConfiguration: true
        default: false
        }
    }
}
