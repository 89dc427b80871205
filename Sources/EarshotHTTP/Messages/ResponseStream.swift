internal import CMicroHTTPD
import Synchronization

/// A response body written while it is sent: Server-Sent Events, progress, anything produced over time. Sent with
/// chunked transfer encoding.
///
/// The handler returns a ``Response`` with body ``Response/Body/stream(_:)`` at once (status and headers go out
/// first); the server then runs `produce` in the handler's task, and every ``ResponseWriter/write(_:)`` reaches the
/// client as soon as the connection can take it. The body ends when `produce` returns; if it throws, the connection
/// is closed without the final chunk (the client sees a broken transfer), so a producer that wants to report an
/// error in-band (an SSE `error` event) writes it and returns. Only async handlers may answer with a stream.
public struct ResponseStream: Sendable {
    let produce: @Sendable (ResponseWriter) async throws -> Void
    let channel = StreamChannel()

    /// A body whose bytes `produce` writes.
    public init(_ produce: @escaping @Sendable (ResponseWriter) async throws -> Void) {
        self.produce = produce
    }
}

/// Writes the bytes of a ``ResponseStream``.
public struct ResponseWriter: Sendable {
    let channel: StreamChannel

    /// Queues `bytes` for the client, waiting while more than ``StreamChannel/highWater`` bytes are unsent.
    ///
    /// - Throws: ``HTTPError`` (`CLIENT_CLOSED`) once the client has gone away or the server is shutting down;
    ///   stop producing then. `CancellationError` when the task is cancelled.
    public func write(_ bytes: [UInt8]) async throws {
        try await channel.write(bytes)
    }

    /// Queues the UTF-8 bytes of `text`.
    public func write(_ text: String) async throws {
        try await channel.write(Array(text.utf8))
    }
}

/// The hand-over between a producer task and libmicrohttpd's content-reader callback on a worker thread.
///
/// The callback copies what is queued; when nothing is, it suspends the connection (the only safe place to do so)
/// and the next write resumes it. Every transition happens under one lock, so a resume never targets a connection
/// that has completed.
final class StreamChannel: Sendable {
    /// Unsent bytes above which a write waits for the client.
    static let highWater = 1 << 20

    private struct State {
        var chunks: [[UInt8]] = []
        var offset = 0
        var buffered = 0
        var finished = false
        var failed = false
        /// The request completed (sent, timed out, client gone): nothing may touch the connection any more.
        var closed = false
        /// The callback suspended the connection waiting for data.
        var suspended = false
        var connection: Connection?
        var writer: CheckedContinuation<Void, any Error>?
        var sent = 0
    }

    /// The libmicrohttpd connection the body goes to.
    struct Connection: @unchecked Sendable {
        // SAFETY: the pointer is only used for MHD_suspend_connection (on the worker thread, in the content reader)
        // and MHD_resume_connection (any thread, thread-safe), both under `state`'s lock and only before `closed` is
        // set by the completion callback.
        let pointer: OpaquePointer
    }

    private let state = Mutex(State())

    /// Bytes handed to libmicrohttpd so far.
    var sent: Int { state.withLock { $0.sent } }

    func attach(_ connection: OpaquePointer) {
        state.withLock { $0.connection = Connection(pointer: connection) }
    }

    func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        try Task.checkCancellation()
        let mustWait: Bool = try state.withLock { state in
            guard !state.closed, !state.failed else { throw Self.gone }
            state.chunks.append(bytes)
            state.buffered += bytes.count
            wake(&state)
            return state.buffered > Self.highWater
        }
        guard mustWait else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            state.withLock { state in
                if state.closed || state.failed {
                    continuation.resume(throwing: Self.gone)
                } else if state.buffered <= Self.highWater / 2 {
                    continuation.resume()
                } else {
                    state.writer = continuation
                }
            }
        }
    }

    /// The producer returned: send what is queued, then end the body.
    func finish() {
        state.withLock { state in
            state.finished = true
            wake(&state)
        }
    }

    /// The producer threw, or the server is giving up on the request: end the transfer as broken.
    func fail() {
        let writer: CheckedContinuation<Void, any Error>? = state.withLock { state in
            state.failed = true
            wake(&state)
            defer { state.writer = nil }
            return state.writer
        }
        writer?.resume(throwing: Self.gone)
    }

    /// The request is over (completion callback): wake a waiting writer with an error.
    func close() {
        let writer: CheckedContinuation<Void, any Error>? = state.withLock { state in
            state.closed = true
            state.suspended = false
            defer { state.writer = nil }
            return state.writer
        }
        writer?.resume(throwing: Self.gone)
    }

    /// Resumes the connection if the content reader suspended it (call under the lock).
    private func wake(_ state: inout State) {
        guard state.suspended, !state.closed, let connection = state.connection else { return }
        state.suspended = false
        MHD_resume_connection(connection.pointer)
    }

    /// libmicrohttpd's content reader: copies queued bytes into `buffer`, or suspends the connection until a write.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let (count, writer): (Int, CheckedContinuation<Void, any Error>?) = state.withLock { state in
            if state.failed { return (-2, nil) }  // MHD_CONTENT_READER_END_WITH_ERROR
            var copied = 0
            while copied < buffer.count, !state.chunks.isEmpty {
                let chunk = state.chunks[0]
                let take = min(buffer.count - copied, chunk.count - state.offset)
                chunk.withUnsafeBytes { source in
                    buffer.baseAddress!.advanced(by: copied).copyMemory(
                        from: source.baseAddress!.advanced(by: state.offset), byteCount: take)
                }
                copied += take
                state.offset += take
                if state.offset == chunk.count {
                    state.chunks.removeFirst()
                    state.offset = 0
                }
            }
            state.buffered -= copied
            state.sent += copied
            var writer: CheckedContinuation<Void, any Error>?
            if state.buffered <= Self.highWater / 2 {
                writer = state.writer
                state.writer = nil
            }
            if copied > 0 { return (copied, writer) }
            if state.finished { return (-1, writer) }  // MHD_CONTENT_READER_END_OF_STREAM
            if let connection = state.connection {
                state.suspended = true
                MHD_suspend_connection(connection.pointer)
            }
            return (0, writer)
        }
        writer?.resume()
        return count
    }

    static let gone = HTTPError(
        HTTPStatus(code: 499), code: "CLIENT_CLOSED", message: "the client closed the connection during the response")

    /// libmicrohttpd's content-reader callback; `cls` is an unretained ``StreamChannel``.
    static let contentReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer else { return -2 }
        let channel = Unmanaged<StreamChannel>.fromOpaque(cls).takeUnretainedValue()
        return channel.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
    }

    /// Releases the reference the response held (libmicrohttpd calls it when the response is destroyed).
    static let release: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        Unmanaged<StreamChannel>.fromOpaque(cls).release()
    }
}
