/// A phone number in E.164 form (`+14155550123`), checked against the country table.
///
/// Spaces, hyphens, dots and parentheses between digits are ignored; any other character is refused, including
/// digits of other scripts (full-width `１`, Arabic-Indic `٣`) that look like ASCII digits. The number must start
/// with `+` and a calling code, and its national part must have a length valid for the country (given, or found
/// from the calling code).
public struct PhoneNumber: Sendable, Hashable, CustomStringConvertible {
    /// `+` and 8-15 digits.
    public let value: String
    /// The country, when the caller named it or the calling code identifies one country.
    public let country: Country?

    /// Parses `text`; `country` (ISO alpha-2) pins the country. Throws ``AccountError`` naming `field` or
    /// `countryField`.
    public init(_ text: String, country code: String? = nil, field: String = "phone", countryField: String = "country")
        throws(AccountError)
    {
        var pinned: Country?
        if let code {
            guard let found = Country.named(code.trimmingSpaces()) else {
                throw .invalid(
                    countryField,
                    "'\(code)' is not an ISO 3166-1 alpha-2 country code (like US, CN, DE); GET "
                        + "/open/accounts/countries lists them")
            }
            pinned = found
        }
        let trimmed = text.trimmingSpaces()
        guard !trimmed.isEmpty else { throw .invalid(field, "is empty; enter a number like +14155550123") }
        var digits = ""
        for (index, scalar) in trimmed.unicodeScalars.enumerated() {
            switch scalar {
            case "0"..."9": digits.unicodeScalars.append(scalar)
            case "+" where index == 0: continue
            case " ", "-", ".", "(", ")": continue
            default:
                if scalar.properties.numericType != nil {
                    throw .invalid(field, "contains \(Characters.describe(scalar)); use the ASCII digits 0-9")
                }
                throw .invalid(
                    field, "contains \(Characters.describe(scalar)); a phone number is + and digits (like +14155550123)"
                )
            }
        }
        guard trimmed.hasPrefix("+") else {
            throw .invalid(
                field,
                "'\(trimmed)' must start with + and the country calling code (E.164, like +14155550123)"
                    + (pinned.map { "; for \($0.name) that is +\($0.callingCode)" } ?? ""))
        }
        guard (8...15).contains(digits.count) else {
            throw .invalid(field, "has \(digits.count) digits; an E.164 number has 8 to 15 after the +")
        }
        let fits: (Country) -> Bool = { country in
            digits.hasPrefix(country.callingCode)
                && country.nationalNumberLengths.contains(digits.count - country.callingCode.count)
        }
        if let pinned {
            guard digits.hasPrefix(pinned.callingCode) else {
                throw .invalid(
                    field, "+\(digits) is not a \(pinned.name) number: those start with +\(pinned.callingCode)")
            }
            guard fits(pinned) else {
                let lengths = pinned.nationalNumberLengths.map(String.init).joined(separator: ", ")
                throw .invalid(
                    field,
                    "+\(digits) has \(digits.count - pinned.callingCode.count) digits after +\(pinned.callingCode); "
                        + "\(pinned.name) numbers have \(lengths)")
            }
            country = pinned
        } else {
            let candidates = Country.all.filter(fits)
            guard !candidates.isEmpty else {
                throw .invalid(field, "+\(digits) does not start with a known calling code followed by a valid number")
            }
            country = candidates.count == 1 ? candidates[0] : nil
        }
        value = "+" + digits
    }

    public var description: String { value }
}
