/// The states of a transcription task, as the seed clients spell them.
///
/// `PENDING` (queued) → `RECEIVED` (a worker claimed it) → `STARTED` (audio decoded, recognition running) →
/// `PROGRESS` (recognition reported progress) → `SUCCESS` | `FAILURE` | `REVOKED`. A task that is retried after a
/// failed attempt or a lost worker goes back to `PENDING`.
public enum TaskStatus: String, Codable, Sendable, Hashable, CaseIterable {
    case pending = "PENDING"
    case received = "RECEIVED"
    case started = "STARTED"
    case progress = "PROGRESS"
    case success = "SUCCESS"
    case failure = "FAILURE"
    case revoked = "REVOKED"

    /// Whether the task will not change any more.
    public var isFinal: Bool { self == .success || self == .failure || self == .revoked }
}
