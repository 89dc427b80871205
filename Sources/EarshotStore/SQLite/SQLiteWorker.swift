internal import Dispatch

/// A connection and the serial dispatch queue that is the only place it is used.
///
/// SQLite calls block, so they run on this queue's thread (libdispatch's pool), never on Swift's cooperative
/// pool; callers await the result.
final class SQLiteWorker: @unchecked Sendable {
    // SAFETY: `connection` is only touched inside blocks submitted to the serial `queue`, so at most one
    // thread uses it at a time; `queue` itself is thread-safe.
    private let connection: SQLiteConnection
    private let queue: DispatchQueue

    init(connection: SQLiteConnection, label: String) {
        self.connection = connection
        self.queue = DispatchQueue(label: label)
    }

    /// Runs `work` on the worker's queue with its connection and returns the result to the awaiting task.
    func run<T: Sendable>(_ work: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try work(self.connection) })
            }
        }
    }

    /// ``transaction(_:_:)`` on the calling thread, for a caller that holds this worker exclusively (borrowed from
    /// the ``ReaderPool``): `queue.sync` keeps the rule that the connection is only used inside the queue, and
    /// with the queue idle it runs the block right here, without a thread switch.
    func transactionNow<T>(_ begin: String, _ body: (any SQLDatabase) throws -> T) throws -> T {
        try queue.sync {
            try connection.execute(begin, [])
            do {
                let result = try body(connection)
                try connection.execute("COMMIT", [])
                return result
            } catch {
                if !connection.isAutocommit { try? connection.executeScript("ROLLBACK") }
                throw error
            }
        }
    }

    /// Runs `body` inside `BEGIN <mode>` … `COMMIT`, rolling back when it throws.
    func transaction<T: Sendable>(
        _ begin: String, _ body: @escaping @Sendable (any SQLDatabase) throws -> T
    ) async throws -> T {
        try await run { connection in
            try connection.execute(begin, [])
            do {
                let result = try body(connection)
                try connection.execute("COMMIT", [])
                return result
            } catch {
                // SQLite may already have rolled back (e.g. after SQLITE_FULL); only roll back an open transaction.
                if !connection.isAutocommit { try? connection.executeScript("ROLLBACK") }
                throw error
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
