/// What a new password must be: long enough, not enormous, not one of the most common passwords, not the
/// account's own address, and free of control characters.
///
/// Follows NIST SP 800-63B §5.1.1.2: a length floor instead of composition rules, any printable Unicode (compared
/// after NFC normalisation), a check against common passwords. The ceiling bounds the work one request can ask of
/// the hasher.
public struct PasswordPolicy: Sendable, Hashable {
    /// Fewest characters (Unicode extended grapheme clusters; default 8).
    public var minimumLength = 8
    /// Most UTF-8 bytes (default 1024).
    public var maximumBytes = 1024

    /// A policy with these bounds (defaults: 8 characters, 1024 bytes).
    public init(minimumLength: Int = 8, maximumBytes: Int = 1024) {
        self.minimumLength = minimumLength
        self.maximumBytes = maximumBytes
    }

    /// Throws ``AccountError`` `.invalidArgument` naming `field` and the rule `password` breaks.
    public func check(_ password: String, field: String = "password", address: String? = nil) throws(AccountError) {
        let bytes = password.utf8.count
        guard bytes <= maximumBytes else {
            throw .invalid(field, "is \(bytes) bytes long; use at most \(maximumBytes) bytes")
        }
        guard password.count >= minimumLength else {
            throw .invalid(
                field,
                "is \(password.count) characters long; use at least \(minimumLength) (a passphrase of a few "
                    + "words is easy to remember)")
        }
        if let scalar = password.unicodeScalars.first(where: { Characters.isInvisible($0) }) {
            throw .invalid(field, "contains \(Characters.describe(scalar)), which cannot be typed reliably; remove it")
        }
        let folded = password.lowercased()
        if Self.common.contains(folded) || Set(folded).count == 1 {
            throw .invalid(field, "is one of the most common passwords; choose another")
        }
        if let address, !address.isEmpty,
            folded == address.lowercased()
                || folded == address.lowercased().split(separator: "@").first.map(String.init)
        {
            throw .invalid(field, "must not be your email address or phone number")
        }
    }

    /// Common passwords of 8 characters or more (from public breach-frequency lists), lower-cased.
    static let common: Set<String> = [
        "password", "password1", "password12", "password123", "password1234", "passw0rd", "p@ssw0rd", "p@ssword",
        "12345678", "123456789", "1234567890", "12345678910", "0123456789", "87654321", "11111111", "00000000",
        "88888888", "12341234", "11223344", "123123123", "1q2w3e4r", "1q2w3e4r5t", "1qaz2wsx", "qwertyuiop",
        "qwerty123", "qwerty12", "qwerty1234", "qwertyui", "asdfghjkl", "asdfasdf", "zxcvbnm1", "iloveyou",
        "iloveyou1", "sunshine", "princess", "football", "baseball", "superman", "starwars", "whatever",
        "trustno1", "letmein1", "welcome1", "welcome123", "admin123", "administrator", "changeme", "computer",
        "michelle", "jennifer", "corvette", "mercedes", "babygirl", "butterfly", "liverpool", "chocolate",
        "abcd1234", "abc12345", "abcdefgh", "aa123456", "q1w2e3r4", "q1w2e3r4t5", "zaq12wsx", "1234qwer",
        "qazwsxedc", "password!", "monkey123", "dragon123", "master123", "shadow123", "football1", "baseball1",
        "secret123", "hello123", "lovely123", "earshot1", "earshot123",
    ]
}
