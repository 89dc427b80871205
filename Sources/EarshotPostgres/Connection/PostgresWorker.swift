internal import Dispatch
internal import EarshotStore
internal import Foundation

/// A connection and the serial dispatch queue that is the only place it is used.
///
/// libpq calls block, so they run on this queue's thread (libdispatch's pool), never on Swift's cooperative pool;
/// callers await the result. A connection the server or the network dropped is re-opened before the next use.
final class PostgresWorker: @unchecked Sendable {
    // SAFETY: `connection` is only touched inside blocks submitted to the serial `queue`, so at most one thread
    // uses it at a time; `queue` itself is thread-safe.
    private let connection: PostgresConnection
    private let queue: DispatchQueue

    private init(connection: PostgresConnection, queue: DispatchQueue) {
        self.connection = connection
        self.queue = queue
    }

    /// Opens a connection on a new worker's queue (connecting blocks).
    static func open(_ parameters: ConnectionParameters, label: String) async throws -> PostgresWorker {
        let queue = DispatchQueue(label: label)
        let connection: PostgresConnection = try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try PostgresConnection(parameters) }) }
        }
        return PostgresWorker(connection: connection, queue: queue)
    }

    /// Runs `work` on the worker's queue with its (healthy) connection.
    func run<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(
                    with: Result {
                        if !self.connection.isHealthy { try self.connection.connect() }
                        return try work(self.connection)
                    })
            }
        }
    }

    /// Runs `body` in a transaction opened with `begin`, committing when it returns and rolling back when it
    /// throws. With `retries` > 0 a transaction that failed only because it conflicted with a concurrent one
    /// (SQLSTATE 40001/40P01) is run again, after a short random pause, up to `retries` times.
    func transaction<T: Sendable>(
        _ begin: String, retries: Int, _ body: @escaping @Sendable (any SQLDatabase) throws -> T
    ) async throws -> T {
        try await run { connection in
            var attempt = 0
            while true {
                attempt += 1
                do {
                    try connection.executeScript(begin)
                    let result = try body(connection)
                    try connection.executeScript("COMMIT")
                    return result
                } catch {
                    if connection.isInTransaction { try? connection.executeScript("ROLLBACK") }
                    guard let failure = error as? StoreError, failure.isSerializationFailure else { throw error }
                    guard attempt <= retries else {
                        throw StoreError(
                            .unavailable,
                            "the transaction conflicted with concurrent ones \(attempt) times in a row: retry later",
                            underlying: failure)
                    }
                    // Jittered backoff: 1, 2, 4 … ms (at most ~50 ms), so conflicting writers spread out.
                    let ceiling = min(1 << min(attempt, 6), 50)
                    usleep(UInt32(Int.random(in: 0...ceiling * 1000)))
                }
            }
        }
    }

    /// Closes the connection after every block queued before this call has run.
    func close() async {
        await withCheckedContinuation { continuation in
            queue.async {
                self.connection.close()
                continuation.resume()
            }
        }
    }
}
