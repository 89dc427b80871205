import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One URLSession exchange through the completion-handler API: the transport of ``EarshotClient``.
///
/// Not the async `data(for:)` / `upload(for:)`: FoundationNetworking (Linux) cancels those from inside the task's
/// cancellation handler by waiting on the session's queue, and that queue may at the same moment be completing the
/// exchange and waiting for the task — a deadlock, seen when a server stopped with requests in flight. Here the answer
/// and cancellation race to finish the exchange once, and cancellation ends the call at once. The URLSession task is
/// cancelled ``transportGrace`` later, and only if its transfer has not ended: FoundationNetworking's `cancel()`
/// crashes the process when it runs while the same task completes (ExchangeCancellationTests hit that with requests
/// cancelled a few milliseconds before their answer). A task never started is cancelled at once.
enum SessionExchange {
    /// How long a cancelled call's transfer may go on before its URLSession task is cancelled.
    static let transportGrace: TimeInterval = 2

    /// Sends `request` with `file` or `body` as its body (neither: none); cancellation throws `CancellationError`,
    /// transport failures the session's error.
    static func send(_ request: URLRequest, body: Data?, file: URL?, session: URLSession) async throws
        -> (Data, URLResponse)
    {
        let exchange = Locked(Pending())
        let completion: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
            exchange.withLock { $0.transportEnded = true }
            if let error {
                finish(exchange, .failure(error))
            } else if let response {
                finish(exchange, .success(Answer(data: data ?? Data(), response: response)))
            } else {
                finish(exchange, .failure(URLError(.badServerResponse)))
            }
        }
        let task: URLSessionTask
        if let file {
            task = session.uploadTask(with: request, fromFile: file, completionHandler: completion)
        } else if let body {
            task = session.uploadTask(with: request, from: body, completionHandler: completion)
        } else {
            task = session.dataTask(with: request, completionHandler: completion)
        }
        let handle = TaskHandle(task)
        let answer = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Answer, any Error>) in
                let early = exchange.withLock { pending -> Result<Answer, any Error>? in
                    if let early = pending.early { return early }
                    pending.continuation = continuation
                    return nil
                }
                guard let early else { return handle.task.resume() }
                continuation.resume(with: early)
                handle.task.cancel()  // never started: nothing can be completing
            }
        } onCancel: {
            guard finish(exchange, .failure(CancellationError())) else { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + transportGrace) {
                if !exchange.withLock({ $0.transportEnded }) { handle.task.cancel() }
            }
        }
        return (answer.data, answer.response)
    }

    /// Resumes the exchange with `result` unless something already did; true when this call finished it.
    @discardableResult
    private static func finish(_ exchange: Locked<Pending>, _ result: Result<Answer, any Error>) -> Bool {
        let continuation = exchange.withLock { pending -> CheckedContinuation<Answer, any Error>?? in
            guard !pending.finished else { return .none }
            pending.finished = true
            guard let continuation = pending.continuation else {
                pending.early = result
                return .some(nil)
            }
            pending.continuation = nil
            return .some(continuation)
        }
        guard let continuation else { return false }
        continuation?.resume(with: result)
        return true
    }

    /// The exchange's continuation, or the outcome that arrived before it (cancelled before it started).
    private struct Pending: Sendable {
        var continuation: CheckedContinuation<Answer, any Error>?
        var early: Result<Answer, any Error>?
        var finished = false
        /// The task's completion handler ran: its transfer is over.
        var transportEnded = false
    }

    // SAFETY: the body and the response are complete and never changed once the session delivered them.
    private struct Answer: @unchecked Sendable {
        let data: Data
        let response: URLResponse
    }

    // SAFETY: URLSessionTask's resume() and cancel() are documented thread-safe; nothing else is called on it.
    private final class TaskHandle: @unchecked Sendable {
        let task: URLSessionTask
        init(_ task: URLSessionTask) { self.task = task }
    }
}
