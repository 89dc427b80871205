/// One message to an account's address: a verification or password-reset code.
public struct OutboundMessage: Sendable, Hashable {
    /// Where it goes: `email` or `sms`.
    public var channel: AccountAddress.Channel
    /// The email address or E.164 number.
    public var destination: String
    /// The email subject (unused for SMS).
    public var subject: String
    /// The text.
    public var body: String

    /// A message to `destination` over `channel`.
    public init(channel: AccountAddress.Channel, destination: String, subject: String, body: String) {
        self.channel = channel
        self.destination = destination
        self.subject = subject
        self.body = body
    }
}

/// Sends messages of one channel. Throws ``AccountError`` `.unavailable` for failures worth retrying (the server
/// is down, a timeout, a 4xx/5xx that says "try later") and `.invalidArgument` for those that are not (the
/// recipient was refused).
public protocol MessageSender: Sendable {
    func send(_ message: OutboundMessage) async throws
}
