/// How a ``MetadataStore/write(_:_:)`` transaction is isolated from writers in other connections and processes.
public enum WriteIsolation: Sendable, Hashable {
    /// As if every write transaction ran alone, one after the other: SQLite's single writer; PostgreSQL's
    /// `SERIALIZABLE`, where a transaction that conflicts with a concurrent one is rolled back and its closure run
    /// again (so a write closure must not have effects outside the database). The default.
    case serializable
    /// Each statement sees the rows committed before it started and locks the rows it changes, without waiting for
    /// or conflicting with unrelated writers: PostgreSQL's `READ COMMITTED`. For transactions of one self-contained
    /// statement that must never be retried or serialised behind others (a job claim with `SKIP LOCKED`, a
    /// heartbeat). SQLite runs it like ``serializable``.
    case statement
}
