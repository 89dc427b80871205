/// Names characters in error messages and spots the ones that make two strings look alike.
enum Characters {
    /// `'а' (U+0430 CYRILLIC SMALL LETTER A)`, or the code point alone for an invisible character.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        let name = scalar.properties.name.map { " \($0)" } ?? ""
        if isInvisible(scalar) { return "the invisible character \(code)\(name)" }
        return "'\(Character(scalar))' (\(code)\(name))"
    }

    /// Control, format (zero-width spaces and joiners, bidirectional overrides), private-use and unassigned code
    /// points, and every space other than U+0020.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .privateUse, .unassigned, .surrogate, .lineSeparator, .paragraphSeparator: true
        case .spaceSeparator: scalar != " "
        default: false
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
