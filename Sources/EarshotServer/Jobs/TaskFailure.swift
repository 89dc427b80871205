import EarshotAPI
import EarshotStore

/// A job's failure reason with a stable wire code: stored in the queue's one `error` column as `CODE: message` and
/// split again for the task's `error_code` and `error`, so a client can switch on why a task failed.
enum TaskFailure {
    /// The queue failure that ends a job now with `code`.
    static func permanent(_ code: ErrorCode, _ message: String) -> JobQueue.Failure {
        .permanent(reason: "\(code.rawValue): \(message)")
    }

    /// The ``JobFailure`` a job kind throws to end now with `code`.
    static func failure(_ code: ErrorCode, _ message: String) -> JobFailure {
        JobFailure(failure: permanent(code, message))
    }

    /// The code and message of a stored reason; no code when the reason has none (retries, older rows).
    static func split(_ reason: String?) -> (code: String?, message: String?) {
        guard let reason else { return (nil, nil) }
        guard let colon = reason.firstIndex(of: ":") else { return (nil, reason) }
        let code = reason[..<colon]
        guard code.count >= 3, code.allSatisfy({ ("A"..."Z").contains($0) || $0 == "_" }) else { return (nil, reason) }
        return (String(code), String(reason[reason.index(after: colon)...].drop { $0 == " " }))
    }
}
