import EarshotCore

/// The development channel: writes each message, code included, to the server log (`label=accounts`) instead of
/// sending it. Never use it where the log is readable by someone who is not the account's owner.
public struct LogSender: MessageSender {
    let logger = Logger(label: "accounts")

    /// The log channel.
    public init() {}

    /// Writes the message to the log.
    public func send(_ message: OutboundMessage) async throws {
        logger.notice(
            "verification message (log channel: not sent)",
            metadata: [
                "channel": message.channel.rawValue, "to": message.destination, "subject": message.subject,
                "body": message.body,
            ])
    }
}
