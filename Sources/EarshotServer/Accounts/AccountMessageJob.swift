import EarshotAccounts
import EarshotStore

/// The `account-message` job kind: sends one outbox message (a verification or reset code) through its channel
/// (SMTP, the SMS gateway, or the log) with the runner's retries, and erases the message's body when the job is
/// final. A refused recipient fails at once; a server that is down is retried with backoff.
struct AccountMessageJob: JobKind {
    var name: String { Outbox.jobKind }
    let policy: JobPolicy
    let outbox: Outbox

    func run(_ job: Job, context: JobContext) async throws -> String {
        let sent = try await outbox.deliver(job.id)
        return sent ? #"{"delivered":true}"# : #"{"delivered":false,"reason":"the message no longer exists"}"#
    }

    func failure(for error: any Error, job: Job) -> JobQueue.Failure {
        if let error = error as? AccountError, error.code == .invalidArgument {
            return .permanent(reason: error.message)
        }
        return .retry(
            reason: "\(error)", attempt: job.attempts, base: policy.retryDelay, maximum: policy.maximumRetryDelay)
    }

    func finished(_ db: any SQLDatabase, _ job: Job) throws {
        try Outbox.erase(db, id: job.id)
    }
}
