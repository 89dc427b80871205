/// The one error type of EarshotStore: metadata stores, migrations and blob stores all throw it.
///
/// Switch on ``code`` (an extensible set of well-known values); show ``message`` to a human. Errors from
/// the underlying database or file system are kept in ``underlying`` for logs. Cancellation is reported as
/// Swift's `CancellationError`, not as a `StoreError`.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is. New codes may be added; match the ones you handle and treat the rest as
    /// internal errors.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case notFound, conflict, invalidKey, invalidRange, invalidArgument, corrupted, migrationFailed
            case migrationModified, schemaTooNew, unavailable, unsupported, io, diskFull, database, closed
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The row or blob does not exist.
        public static let notFound = Code(.notFound)
        /// A constraint was violated (unique key, foreign key, check) or a blob key clashes with another.
        public static let conflict = Code(.conflict)
        /// A blob key (or key prefix) is not of the allowed shape; see ``BlobKey``.
        public static let invalidKey = Code(.invalidKey)
        /// A byte range lies outside the blob.
        public static let invalidRange = Code(.invalidRange)
        /// An argument is malformed (a bad migration list, a bad SQL binding…): a programming error.
        public static let invalidArgument = Code(.invalidArgument)
        /// Stored data failed an integrity check (digest mismatch, a corrupt database file).
        public static let corrupted = Code(.corrupted)
        /// A migration failed and was rolled back; the message names it.
        public static let migrationFailed = Code(.migrationFailed)
        /// An applied migration differs from (or is missing in) the list this binary carries.
        public static let migrationModified = Code(.migrationModified)
        /// The database was migrated by a newer Earshot than this binary.
        public static let schemaTooNew = Code(.schemaTooNew)
        /// The backend is temporarily unable to serve (database busy or locked, connection lost): retry later.
        public static let unavailable = Code(.unavailable)
        /// The backend lacks a required capability (for example SQLite without FTS5).
        public static let unsupported = Code(.unsupported)
        /// A file-system or disk error (permission denied, I/O error).
        public static let io = Code(.io)
        /// The disk (or the file system's quota) is full: nothing can be written until space is freed.
        public static let diskFull = Code(.diskFull)
        /// Any other database error: SQL syntax, misuse, type mismatch.
        public static let database = Code(.database)
        /// The store has been closed.
        public static let closed = Code(.closed)

        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable explanation that says what went wrong and, where possible, how to fix it.
    public let message: String
    /// The error reported by the layer below, if any.
    public let underlying: (any Error)?

    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        if let underlying { return "\(code): \(message) (\(underlying))" }
        return "\(code): \(message)"
    }
}
