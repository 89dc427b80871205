/// A metadata store that carries wake-up messages between processes (PostgreSQL's `LISTEN`/`NOTIFY`).
///
/// A message is sent inside a write transaction (`SELECT pg_notify(channel, payload)` on PostgreSQL) and delivered
/// to every listener when, and only if, that transaction commits. Delivery is best effort (a listener that was
/// reconnecting misses messages): use it to wake pollers early, never as the only way to find work.
public protocol MetadataNotifications: Sendable {
    /// The payloads sent on `channel` from now on, until the stream's consumer stops iterating (the listening
    /// connection is closed then). A lost connection is re-established in the background.
    func notifications(on channel: String) -> AsyncStream<String>
}
