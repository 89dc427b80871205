/// What the caller learns when a code is sent: where (masked), how long it lives, when another may be asked for.
public struct CodeTicket: Sendable, Hashable, Codable {
    /// The account the code is for.
    public let accountID: String
    /// `email` or `sms`.
    public let channel: AccountAddress.Channel
    /// The destination with most of it hidden (`j•••@example.com`, `+1•••••••123`).
    public let destination: String
    /// Seconds until the code expires.
    public let expiresIn: Int
    /// Seconds until another code may be asked for.
    public let resendAfter: Int
    /// The outbox message (and its delivery job).
    public let messageID: String

    enum CodingKeys: String, CodingKey {
        case channel, destination
        case accountID = "account_id"
        case expiresIn = "expires_in"
        case resendAfter = "resend_after"
        case messageID = "message_id"
    }

    /// `j•••@example.com` or `+1•••••••123`.
    static func mask(_ address: String) -> String {
        if let at = address.firstIndex(of: "@") {
            return String(address[..<at].prefix(1)) + "•••" + address[at...]
        }
        let digits = Array(address)
        guard digits.count > 5 else { return address }
        return String(digits.prefix(2)) + String(repeating: "•", count: digits.count - 5) + String(digits.suffix(3))
    }
}
