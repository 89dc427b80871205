public import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// One HTTP exchange over `URLSession` with a hard deadline, for the clients of outside providers (the language
/// model, the speech provider).
///
/// The completion-handler API is used, and the data task cancelled on the deadline or on task cancellation, because
/// the async `data(for:)` of FoundationNetworking can outlive both (seen stuck on a connection the server had
/// closed), and cancelling it while it completes deadlocks (it waits on the session's queue from inside the task's
/// cancellation handler while that queue resumes the same task). Whichever comes first — the answer, the deadline,
/// cancellation — finishes the exchange; the others are ignored, and the URLSession task is cancelled only by the one
/// that finished it. Every server-side client of an HTTP service sends through here (EarshotKit, which may use only
/// Foundation, has its own `SessionExchange`).
public enum DeadlineExchange {
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
        let (whole, fraction) = timeout.components
        let delay = Double(whole) + Double(fraction) / 1e18
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                exchange.start(continuation)
                handle.task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
                    if exchange.finish(.failure(failure(.timedOut))) { handle.task.cancel() }
                }
            }
        } onCancel: {
            if exchange.finish(.failure(CancellationError())) { handle.task.cancel() }
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
    }
    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<(Data, URLResponse), any Error>) {
        let early = state.withLock { state -> Result<(Data, URLResponse), any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
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
