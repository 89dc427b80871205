/// The character-level normalisation rules (width, thousands separators, punctuation, fillers, CJK split).
enum CharacterRules {
    static func isASCIIDigit(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 0x30 && scalar.value <= 0x39 }

    static func isLetter(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isAlphabetic }

    /// Han ideographs, CJK punctuation-free syllabaries (kana) and Hangul: scripts written without spaces.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF,  // Hiragana, Katakana
            0x3400...0x4DBF,  // CJK Extension A
            0x4E00...0x9FFF,  // CJK Unified Ideographs
            0xAC00...0xD7AF,  // Hangul syllables
            0xF900...0xFAFF,  // CJK Compatibility Ideographs
            0x20000...0x2FA1F:  // Extensions B–F and compatibility supplement
            true
        case 0x3005, 0x3007: true  // 々 and 〇
        default: false
        }
    }

    static func isPunctuationOrSymbol(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            true
        default: false
        }
    }

    static func halfWidth(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0xFF01...0xFF5E: out.append(Unicode.Scalar(scalar.value - 0xFEE0)!)
            case 0x3000: out.append(" ")
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    static func removingThousandsSeparators(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        for (k, scalar) in scalars.enumerated() {
            if scalar == ",", k > 0, isASCIIDigit(scalars[k - 1]), k + 3 < scalars.count,
                (1...3).allSatisfy({ isASCIIDigit(scalars[k + $0]) }),
                k + 4 == scalars.count || !isASCIIDigit(scalars[k + 4])
            {
                continue
            }
            out.append(scalar)
        }
        return String(out)
    }

    static func punctuationToSpace(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        for (k, scalar) in scalars.enumerated() {
            let before = k > 0 ? scalars[k - 1] : nil
            let after = k + 1 < scalars.count ? scalars[k + 1] : nil
            if scalar == "'" || scalar == "\u{2019}" {
                if let before, let after, isLetter(before), isLetter(after) {
                    out.append("'")
                    continue
                }
            } else if scalar == "." {
                if let before, let after, isASCIIDigit(before), isASCIIDigit(after) {
                    out.append(scalar)
                    continue
                }
            } else if scalar == "%" {
                if let before, isASCIIDigit(before) {
                    out.append(scalar)
                    continue
                }
            }
            out.append(isPunctuationOrSymbol(scalar) ? " " : scalar)
        }
        return String(out)
    }

    static func removingFillers(_ text: String, fillers: Set<String>) -> String {
        var text = text
        // Fillers written in CJK characters are removed wherever they occur (no spaces delimit them); the
        // longest first so that a long filler is not broken by a shorter one inside it.
        let cjkFillers = fillers.filter { $0.unicodeScalars.contains(where: isCJK) }
            .sorted { ($0.count, $0) > ($1.count, $1) }
        for filler in cjkFillers { text = text.replacing(filler, with: " ") }
        let wordFillers = fillers.subtracting(cjkFillers)
        guard !wordFillers.isEmpty else { return text }
        return text.split(whereSeparator: \.isWhitespace).filter { !wordFillers.contains(String($0)) }
            .joined(separator: " ")
    }

    static func splittingCJK(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var previousWasCJK = false
        for scalar in text.unicodeScalars {
            if isCJK(scalar) {
                out.append(" ")
                out.append(scalar)
                previousWasCJK = true
            } else {
                if previousWasCJK { out.append(" ") }
                out.append(scalar)
                previousWasCJK = false
            }
        }
        return String(out)
    }
}
