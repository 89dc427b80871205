import EarshotCore
public import EarshotStore

/// Messages waiting to be sent (the `account_outbox` table), each delivered by an ``jobKind`` job of the shared
/// job runner with the same id: the runner gives retries with backoff, a visible state and per-kind metrics.
///
/// A message is written in the transaction that issues its code, so a code is never issued without its message.
/// Its body (which holds the code) is erased when its job becomes final (``erase(_:id:)``, from the job kind's
/// final-state hook): delivered, failed or cancelled, the code no longer sits in the database in clear.
public struct Outbox: Sendable {
    /// The job kind that delivers outbox messages.
    public static let jobKind = "account-message"

    /// Where messages of each channel go.
    public struct Channels: Sendable {
        /// Sends email (SMTP, or the log).
        public var email: any MessageSender
        /// Sends SMS (the HTTP gateway, or the log).
        public var sms: any MessageSender

        /// The two channels.
        public init(email: any MessageSender, sms: any MessageSender) {
            self.email = email
            self.sms = sms
        }

        func sender(for channel: AccountAddress.Channel) -> any MessageSender {
            switch channel {
            case .email: email
            case .sms: sms
            }
        }
    }

    /// Where the outbox table is.
    public let metadata: any MetadataStore
    /// How each channel sends.
    public let channels: Channels

    /// An outbox over `metadata` sending through `channels`.
    public init(metadata: any MetadataStore, channels: Channels) {
        self.metadata = metadata
        self.channels = channels
    }

    /// Sends message `id` through its channel. Returns false when the message no longer exists (its account was
    /// deleted) or was already erased; throws the sender's ``AccountError`` on failure.
    public func deliver(_ id: String) async throws -> Bool {
        let message = try await metadata.read { db in
            try db.queryFirst(
                "SELECT channel, destination, subject, body FROM account_outbox WHERE id = ?", id
            ).map { row in
                OutboundMessage(
                    channel: AccountAddress.Channel(rawValue: try row.decode("channel", as: String.self)) ?? .email,
                    destination: try row.decode("destination"), subject: try row.decode("subject"),
                    body: try row.decode("body"))
            }
        }
        guard let message, !message.body.isEmpty else { return false }
        try await channels.sender(for: message.channel).send(message)
        return true
    }

    /// Erases the body of message `id` (run in the transaction that makes its job final).
    public static func erase(_ db: any SQLDatabase, id: String) throws {
        try db.execute("UPDATE account_outbox SET body = '' WHERE id = ?", id)
    }

    /// Writes a message and its delivery job.
    static func enqueue(
        _ db: any SQLDatabase, partnerID: String, accountID: String, message: OutboundMessage, now: Int64
    ) throws -> String {
        let id = Identifier.make(prefix: "msg")
        try db.execute(
            "INSERT INTO account_outbox (id, account_id, channel, destination, subject, body, created_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?)",
            id, accountID, message.channel.rawValue, message.destination, message.subject, message.body, now)
        _ = try JobQueue.insert(
            db, NewJob(id: id, tenant: partnerID, subject: accountID, kind: jobKind, payload: "{}", maxAttempts: 8),
            at: now)
        return id
    }
}
