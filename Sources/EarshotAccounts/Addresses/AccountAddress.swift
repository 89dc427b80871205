/// How an account is reached and signs in: an email address or a phone number (not both; one per account).
public enum AccountAddress: Sendable, Hashable, CustomStringConvertible {
    case email(EmailAddress)
    case phone(PhoneNumber)

    /// Parses the `email` or `phone` (with optional `country`) of a request; exactly one must be given.
    public static func parse(email: String?, phone: String?, country: String?) throws(AccountError) -> AccountAddress {
        switch (email, phone) {
        case (let email?, nil): return .email(try EmailAddress(email))
        case (nil, let phone?): return .phone(try PhoneNumber(phone, country: country))
        case (nil, nil): throw .invalid("email", "give an email address, or a phone number in `phone`")
        case (_?, _?): throw .invalid("phone", "give an email address or a phone number, not both")
        }
    }

    /// The normalised address (the account's login).
    public var value: String {
        switch self {
        case .email(let email): email.value
        case .phone(let phone): phone.value
        }
    }

    /// `email` or `sms`: where verification codes go.
    public var channel: Channel {
        switch self {
        case .email: .email
        case .phone: .sms
        }
    }

    /// The kind of address, as stored (`email` or `phone`).
    var kind: String {
        switch self {
        case .email: "email"
        case .phone: "phone"
        }
    }

    /// The request field of this address.
    var field: String { kind }

    public var description: String { value }

    /// Where a message goes.
    public enum Channel: String, Sendable, Hashable, Codable {
        case email
        case sms
    }
}
