/// An email address as Earshot stores it: ASCII, lower-cased, checked for the shape mail servers accept.
///
/// Accepts the RFC 5321 "dot-atom" form (`first.last+tag@example.co.uk`) and refuses quoted local parts, IP-literal
/// domains, and every non-ASCII character: letters from other scripts that look like Latin ones (Cyrillic `а`,
/// Greek `ο`, full-width `＠`) would make a second account whose address reads the same. An internationalised domain
/// is accepted in its `xn--` form.
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The normalised address.
    public let value: String

    /// Parses `text` (surrounding spaces are ignored); throws ``AccountError`` naming `field` and the problem.
    public init(_ text: String, field: String = "email") throws(AccountError) {
        let trimmed = text.trimmingSpaces()
        guard !trimmed.isEmpty else { throw .invalid(field, "is empty; enter an email address like name@example.com") }
        if let scalar = trimmed.unicodeScalars.first(where: { !$0.isASCII }) {
            throw .invalid(
                field,
                "contains \(Characters.describe(scalar)); email addresses must be ASCII, because look-alike letters "
                    + "from other scripts make a different address that reads the same (write an internationalised "
                    + "domain in its xn-- form)")
        }
        if let scalar = trimmed.unicodeScalars.first(where: { $0.value < 0x21 || $0.value == 0x7F }) {
            throw .invalid(field, "contains \(Characters.describe(scalar)); remove spaces and control characters")
        }
        guard trimmed.utf8.count <= 254 else {
            throw .invalid(field, "is \(trimmed.utf8.count) characters long; an address has at most 254")
        }
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw .invalid(
                field,
                parts.count == 1
                    ? "'\(trimmed)' has no @; enter an address like name@example.com"
                    : "'\(trimmed)' has more than one @")
        }
        let local = parts[0]
        let domain = parts[1].lowercased()
        guard !local.isEmpty, local.utf8.count <= 64 else {
            throw .invalid(field, "the part before @ must be 1-64 characters")
        }
        let atext = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~-.")
        if let bad = local.first(where: { !atext.contains($0) }) {
            throw .invalid(field, "the character '\(bad)' is not allowed before the @")
        }
        guard !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..") else {
            throw .invalid(field, "the part before @ must not start or end with a dot or contain two dots in a row")
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else {
            throw .invalid(field, "the domain '\(domain)' needs a dot (like example.com)")
        }
        let labelCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        for label in labels {
            guard !label.isEmpty, label.count <= 63, label.allSatisfy(labelCharacters.contains), !label.hasPrefix("-"),
                !label.hasSuffix("-")
            else {
                throw .invalid(
                    field, "the domain '\(domain)' is not a host name (labels of letters, digits and inner hyphens)")
            }
        }
        guard labels.last!.contains(where: { !$0.isNumber }) else {
            throw .invalid(field, "the domain '\(domain)' is not a host name")
        }
        value = local.lowercased() + "@" + domain
    }

    public var description: String { value }
}

extension String {
    /// Without leading and trailing U+0020 spaces, tabs and newlines.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
