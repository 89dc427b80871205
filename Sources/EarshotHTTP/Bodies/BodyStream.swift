internal import CMicroHTTPD

/// A request body delivered chunk by chunk as it arrives (``BodyMode/stream(limit:)``).
///
/// Iterate it once, from one task. When the consumer is slower than the client, the server holds at most
/// ``HTTPServer/Configuration/streamBufferBytes`` and suspends the connection until the consumer catches up.
/// Iteration throws ``HTTPError`` 413 when the body passes the route's limit, an `HTTPError` with code
/// `CLIENT_CLOSED` when the client disconnects mid-body, and `CancellationError` when the task is cancelled.
public struct BodyStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    let exchange: Exchange

    public struct AsyncIterator: AsyncIteratorProtocol {
        let exchange: Exchange

        public mutating func next() async throws -> [UInt8]? {
            try await exchange.nextChunk()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(exchange: exchange)
    }

    /// Reads the whole body into memory (bounded by the route's limit).
    public func collect() async throws -> [UInt8] {
        var out: [UInt8] = []
        for try await chunk in self { out.append(contentsOf: chunk) }
        return out
    }
}

extension Exchange {
    /// Worker thread: a chunk for the consumer; suspends the connection when too much is buffered.
    func push(_ chunk: [UInt8]) {
        let high = core.configuration.streamBufferBytes
        let waiter: CheckedContinuation<[UInt8]?, any Error>? = shared.withLock { state in
            guard state.response == nil, state.bodyFailure == nil else { return nil }  // nobody will read it
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.chunks.append(chunk)
            state.bufferedBytes += chunk.count
            // `forcing` is read under the lock for the same reason as in Exchange.awaitResponse.
            if state.bufferedBytes >= high && !core.forcing && !state.suspended {
                state.suspended = true
                MHD_suspend_connection(connection)
            }
            return nil
        }
        waiter?.resume(returning: chunk)
    }

    /// Worker thread: the body ended normally.
    func finishBody() {
        let waiter: CheckedContinuation<[UInt8]?, any Error>? = shared.withLock { state in
            state.bodyFinished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Worker thread: the body cannot be completed (limit exceeded).
    func failBody(_ error: any Error) {
        let waiter: CheckedContinuation<[UInt8]?, any Error>? = shared.withLock { state in
            state.bodyFailure = error
            state.chunks.removeAll()
            state.bufferedBytes = 0
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: error)
    }

    /// Handler task: the next chunk, nil at the end of the body.
    func nextChunk() async throws -> [UInt8]? {
        let low = core.configuration.streamBufferBytes / 4
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                enum Step {
                    case value([UInt8]?)
                    case failure(any Error)
                    case wait
                }
                let step: Step = shared.withLock { state in
                    defer {
                        // Wake a connection suspended for backpressure once the consumer has caught up.
                        if state.suspended && state.response == nil && !state.bodyFinished && !state.closed
                            && state.bufferedBytes <= low
                        {
                            state.suspended = false
                            MHD_resume_connection(connection)
                        }
                    }
                    if !state.chunks.isEmpty {
                        let chunk = state.chunks.removeFirst()
                        state.bufferedBytes -= chunk.count
                        return .value(chunk)
                    }
                    if let failure = state.bodyFailure { return .failure(failure) }
                    if state.bodyFinished { return .value(nil) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiter = continuation
                    return .wait
                }
                switch step {
                case .value(let chunk): continuation.resume(returning: chunk)
                case .failure(let error): continuation.resume(throwing: error)
                case .wait: break
                }
            }
        } onCancel: {
            let waiter: CheckedContinuation<[UInt8]?, any Error>? = shared.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
