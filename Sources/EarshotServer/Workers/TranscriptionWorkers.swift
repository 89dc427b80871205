import EarshotAPI
import EarshotAudio
import EarshotCore
import EarshotDiarization
import EarshotModels
import EarshotSpeech
import EarshotStore
import Foundation
import Synchronization

/// In-process transcription workers and the lease reaper, run as children of `Application.run`.
///
/// Each worker claims one task at a time with a lease, heartbeats while it decodes (recording `STARTED`,
/// `PROGRESS` and the percentage), and finishes it with a write that only succeeds while it still holds the
/// lease — so a task whose worker was presumed dead and re-queued finishes exactly once. The reaper re-queues
/// tasks whose lease expired (their process was killed). On cancellation (graceful shutdown) a worker stops its
/// decode and returns the task to the queue without counting the attempt.
struct TranscriptionWorkers: Sendable {
    struct Configuration: Sendable {
        var count = 1
        var lease: Duration = .seconds(30)
        var retryDelay: Duration = .seconds(5)
        var pollInterval: Duration = .milliseconds(250)
    }

    let queue: JobQueue
    let metadata: any MetadataStore
    let blobs: any BlobStore
    let engines: FileTranscriber
    /// Speaker attribution for tasks that ask for diarization.
    let speakers: SpeakerModels
    let running: RunningTasks
    let metrics: TaskMetrics
    let configuration: Configuration
    let logger = Logger(label: "workers")
    /// Identifies this process's workers in `lease_owner`.
    let processID = Identifier.make(prefix: "wrk")

    /// Runs the workers and the reaper until cancelled.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await reap() }
            for index in 0..<configuration.count {
                group.addTask { await work(owner: "\(processID)-\(index)") }
            }
        }
    }

    /// Re-queues expired leases and refreshes the queue gauges.
    private func reap() async {
        let interval = min(max(configuration.lease / 4, .milliseconds(100)), .seconds(5))
        while !Task.isCancelled {
            do {
                for job in try await queue.requeueExpired() {
                    logger.warning(
                        "task lease expired",
                        metadata: ["task": job.id, "state": job.state.rawValue, "attempts": "\(job.attempts)"])
                    if job.state.isFinal { metrics.finished(job) }
                }
                metrics.setDepth(try await queue.counts(kind: TranscriptionService.kind))
            } catch is CancellationError {
                return
            } catch {
                logger.warning("lease reaper round failed", metadata: ["error": "\(error)"])
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    private func work(owner: String) async {
        while !Task.isCancelled {
            do {
                if let job = try await queue.claim(
                    kind: TranscriptionService.kind, owner: owner, lease: configuration.lease)
                {
                    await process(job, owner: owner)
                    continue
                }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("claiming a task failed", metadata: ["error": "\(error)"])
            }
            do { try await Task.sleep(for: configuration.pollInterval) } catch { return }
        }
    }

    /// Why a decode stopped without a result.
    private enum Stopped: Error {
        /// The task was revoked or the lease was lost: someone else owns the outcome now.
        case lostLease
    }

    /// Stage and progress the decode reports and the watchdog writes with its heartbeats.
    private final class Progress: Sendable {
        struct Value: Sendable {
            var fraction: Double = 0
            var stage: String? = nil
            var dirty = false
        }
        private let value = Mutex(Value())
        func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
    }

    private func process(_ job: Job, owner: String) async {
        let stop = running.register(job.id)
        defer { running.unregister(job.id) }
        let progress = Progress()
        logger.info("task claimed", metadata: ["task": job.id, "attempt": "\(job.attempts)", "owner": owner])
        let started = ContinuousClock.now
        do {
            let transcript = try await withThrowingTaskGroup(of: Transcript?.self) { group in
                group.addTask { try await transcribe(job, progress: progress) }
                group.addTask {
                    try await watch(job, owner: owner, stop: stop, progress: progress)
                    return nil
                }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let transcript = result { return transcript }
                }
                throw CancellationError()
            }
            let result = String(decoding: try JSONEncoder().encode(transcript), as: UTF8.self)
            if try await queue.complete(job.id, owner: owner, result: result) {
                metrics.ran(ContinuousClock.now - started)
                if let finished = try? await queue.job(job.id) { metrics.finished(finished) }
                logger.info(
                    "task succeeded",
                    metadata: [
                        "task": job.id, "segments": "\(transcript.segments.count)",
                        "elapsed": "\(ContinuousClock.now - started)",
                    ])
            } else {
                logger.notice("task finished elsewhere; result dropped", metadata: ["task": job.id])
            }
        } catch Stopped.lostLease {
            logger.notice("task stopped: revoked or lease lost", metadata: ["task": job.id])
        } catch is CancellationError where Task.isCancelled {
            // Shutting down: hand the task back untouched. The write must run although this task is cancelled.
            await Task.detached { try? await queue.release(job.id, owner: owner) }.value
            logger.notice("task returned to the queue at shutdown", metadata: ["task": job.id])
        } catch {
            let failure = Self.classify(error, attempt: job.attempts, retryDelay: configuration.retryDelay)
            let after = try? await queue.fail(job.id, owner: owner, failure)
            if let after, after.state.isFinal { metrics.finished(after) }
            logger.warning(
                "task attempt failed",
                metadata: [
                    "task": job.id, "attempt": "\(job.attempts)", "state": after?.state.rawValue ?? "lost",
                    "error": "\(error)",
                ])
        }
    }

    /// Heartbeats every third of the lease and whenever progress changed (at most every 500 ms), and stops the
    /// decode within ~100 ms of a revoke in this process or at the first heartbeat that finds the lease gone.
    private func watch(_ job: Job, owner: String, stop: RunningTasks.Stop, progress: Progress) async throws {
        let beat = configuration.lease / 3
        var last = ContinuousClock.now
        while true {
            try await Task.sleep(for: .milliseconds(100))
            if stop.isSet { throw Stopped.lostLease }
            let now = ContinuousClock.now
            let snapshot = progress.withLock { $0 }
            guard now - last >= beat || (snapshot.dirty && now - last >= .milliseconds(500)) else { continue }
            progress.withLock { $0.dirty = false }
            last = now
            let held = try await queue.heartbeat(
                job.id, owner: owner, lease: configuration.lease, progress: snapshot.fraction, stage: snapshot.stage)
            if !held { throw Stopped.lostLease }
        }
    }

    /// Decodes the task's file and transcribes it, reporting stage and progress into `progress`.
    private func transcribe(_ job: Job, progress: Progress) async throws -> Transcript {
        let payload = try TranscriptionService.payload(job)
        guard
            let blobKey = try await metadata.read({ db in
                try db.scalar("SELECT blob_key FROM files WHERE id = ?", payload.fileID, as: String.self)
            })
        else { throw TaskFailure.permanent("file \(payload.fileID) no longer exists") }
        guard let path = try await blobs.localFile(for: try BlobKey(blobKey)) else {
            throw TaskFailure.permanent("file \(payload.fileID) is not stored on a local file system")
        }
        let (engine, tuned, _) = try await engines.engine(for: payload.model)
        // The production file pipeline; recorder uploads may end mid-packet (allowTruncatedAudio): keep what decodes.
        let samples = try await engines.prepareAudio(path).samples
        progress.withLock {
            $0.stage = "STARTED"
            $0.dirty = true
        }
        var options = tuned
        options.language = payload.language
        options.task = TranscriptionOptions.Task(rawValue: payload.task) ?? .transcribe
        let diarization = payload.diarization.flatMap { $0.enabled ? $0 : nil }
        if diarization != nil { options = SpeakerAttribution.prepare(options) }
        for try await event in engine.transcribe(samples: samples, options: options) {
            switch event {
            case .progress(let fraction):
                progress.withLock {
                    $0.fraction = min(max(fraction, 0), 0.99)
                    $0.stage = "PROGRESS"
                    $0.dirty = true
                }
            case .completed(let transcript):
                guard let diarization else { return transcript }
                return try await attributeSpeakers(
                    transcript, samples: samples, diarization: diarization, job: job, payload: payload)
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
        if let userID = payload.userID {
            options.voiceprints = try await VoiceprintService.voiceprints(
                in: metadata, partnerID: job.tenant, userID: userID)
        }
        let attributed = try await speakers.attribution().attribute(transcript, samples: samples, options: options)
        try Task.checkCancellation()
        return attributed
    }

    /// A failure that retrying cannot fix.
    struct TaskFailure: Error, CustomStringConvertible {
        let description: String
        static func permanent(_ message: String) -> TaskFailure { TaskFailure(description: message) }
    }

    /// Bad input fails at once; anything else is retried with exponential backoff.
    static func classify(_ error: any Error, attempt: Int, retryDelay: Duration) -> JobQueue.Failure {
        switch error {
        case let error as TaskFailure: return .permanent(reason: error.description)
        case let error as AudioError:
            // The decoder's message names server paths: say what is wrong without them.
            return .permanent(
                reason: "the audio could not be decoded (\(error.code)): upload WAV, MP3, M4A/AAC, FLAC, Ogg/Opus or "
                    + "WebM audio")
        case let error as SpeechError where error.code == .invalidAudio || error.code == .invalidOption:
            return .permanent(reason: "\(error)")
        case let error as DiarizationError where error.code != .cancelled:
            // Bad options or a missing speaker/VAD model: retrying changes nothing.
            return .permanent(reason: "speaker diarization failed: \(error.message)")
        default:
            return .retry(reason: "\(error)", attempt: attempt, base: retryDelay)
        }
    }
}
