public import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// One HTTP exchange over `URLSession` with a hard deadline, for every server-side HTTP client (the language model,
/// the speech provider, S3, webhooks, SMS, the recorder simulator).
///
/// The completion-handler API is used because the async `data(for:)` of FoundationNetworking can outlive the deadline
/// and cancellation (seen stuck on a connection the server had closed), and cancelling it while it completes
/// deadlocks (it waits on the session's queue from inside the task's cancellation handler while that queue resumes
/// the same task). Whichever comes first — the answer, the deadline, cancellation — finishes the exchange at once; the
/// others are ignored.
///
/// The URLSession task of an exchange that the deadline or cancellation finished is cancelled ``transportGrace``
/// later, and only if its transfer has not ended by then: FoundationNetworking's `cancel()` crashes the process
/// ("Trying to access a behaviour for a task that in not in the registry") when it runs while the same task
/// completes, and a request cancelled a few milliseconds before its answer hit that (ExchangeCancellationTests). A
/// task never started is cancelled at once. EarshotKit, which may use only Foundation, has its own
/// `SessionExchange`, built the same way.
public enum DeadlineExchange {
    /// How long a finished exchange's transfer may go on before its URLSession task is cancelled.
    static let transportGrace: Duration = .seconds(2)

    /// Why an exchange got no answer, for the caller to turn into its module's error.
    public enum Failure: Sendable {
        /// The deadline passed (ours, or the transport's own timeout).
        case timedOut
        /// The transport finished without a response or an error.
        case noResponse
        /// The transport failed (refused, reset, DNS…): its error.
        case unreachable(any Error)
    }

    /// Sends `request` and returns the body and response, or throws `failure(…)`'s error; cancellation throws
    /// `CancellationError`. A non-2xx status is an answer, not a failure.
    public static func send(
        _ request: URLRequest, session: URLSession, timeout: Duration,
        failure: @escaping @Sendable (Failure) -> any Error
    ) async throws -> (Data, URLResponse) {
        let exchange = Exchange()
        let task = session.dataTask(with: request) { data, response, error in
            exchange.transportEnded()
            if let error {
                switch (error as? URLError)?.code {
                case .timedOut?: exchange.finish(.failure(failure(.timedOut)))
                case .cancelled?: exchange.finish(.failure(CancellationError()))
                default: exchange.finish(.failure(failure(.unreachable(error))))
                }
            } else if let response {
                exchange.finish(.success((data ?? Data(), response)))
            } else {
                exchange.finish(.failure(failure(.noResponse)))
            }
        }
        let handle = TaskHandle(task)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard exchange.start(continuation) else {
                    handle.task.cancel()  // never started: nothing can be completing
                    return
                }
                handle.task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds) {
                    if exchange.finish(.failure(failure(.timedOut))) { exchange.stopTransport(of: handle) }
                }
            }
        } onCancel: {
            if exchange.finish(.failure(CancellationError())) { exchange.stopTransport(of: handle) }
        }
    }
}

/// A failure is an error of its own for callers that only log it (`failure: { $0 }`).
extension DeadlineExchange.Failure: Error, CustomStringConvertible {
    /// In words, for an error message: "no answer in time", or the transport's own words for its error ("Couldn't
    /// connect to server (URLError -1004)", not the NSError dump).
    public var description: String {
        switch self {
        case .timedOut: "no answer in time"
        case .noResponse: "the connection ended without an answer"
        case .unreachable(let error as URLError):
            "\((error.userInfo[NSLocalizedDescriptionKey] as? String) ?? error.localizedDescription) "
                + "(URLError \(error.code.rawValue))"
        case .unreachable(let error): error.localizedDescription
        }
    }
}

/// The continuation of one exchange, resumed exactly once by whichever comes first: the answer, the deadline or
/// cancellation. An outcome that arrives before the continuation is kept for it.
private final class Exchange: Sendable {
    private struct State {
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
        var early: Result<(Data, URLResponse), any Error>?
        var finished = false
        var transportEnded = false
    }
    private let state = Mutex(State())

    /// Keeps `continuation` for the outcome; false (and resumed) when the exchange already finished (cancelled
    /// before it started), so the transfer is not to be started.
    func start(_ continuation: CheckedContinuation<(Data, URLResponse), any Error>) -> Bool {
        let early = state.withLock { state -> Result<(Data, URLResponse), any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// Called first by the URLSession task's completion handler: the transfer is over.
    func transportEnded() { state.withLock { $0.transportEnded = true } }

    /// Cancels the finished exchange's transfer after ``DeadlineExchange/transportGrace`` unless it ended by then.
    func stopTransport(of handle: TaskHandle) {
        DispatchQueue.global().asyncAfter(deadline: .now() + DeadlineExchange.transportGrace.seconds) {
            if !self.state.withLock({ $0.transportEnded }) { handle.task.cancel() }
        }
    }

    /// Resumes with `result` unless something already did; true if this call finished the exchange.
    @discardableResult
    func finish(_ result: Result<(Data, URLResponse), any Error>) -> Bool {
        let continuation = state.withLock { state -> CheckedContinuation<(Data, URLResponse), any Error>?? in
            guard !state.finished else { return .none }
            state.finished = true
            guard let continuation = state.continuation else {
                state.early = result
                return .some(nil)
            }
            state.continuation = nil
            return .some(continuation)
        }
        guard let continuation else { return false }
        continuation?.resume(with: result)
        return true
    }
}

// SAFETY: URLSessionTask's resume() and cancel() are documented thread-safe; nothing else is called on it.
private final class TaskHandle: @unchecked Sendable {
    let task: URLSessionDataTask
    init(_ task: URLSessionDataTask) { self.task = task }
}
