import Foundation

/// Writes numbers in English transcript text the way people look them up, where Whisper's spelling is a known
/// miss: clock times after a time word (`at 745` / `at 9.30` → `at 7:45` / `at 9:30`) and identifiers with thousands
/// separators (`order number 47,291` → `order number 47291`).
///
/// Every rule needs context that makes the reading unambiguous, so a quantity is never rewritten: `at 620 degrees`,
/// `grew by 9.30 percent` and `47,291 people` are left as they are. Measured with `make bench-numbers`
/// (docs/speech.md, "Numbers").
public enum NumberForms {
    /// Words after which a bare number can be a clock time.
    static let timeWords = "at|until|till|from|around|before|after|starts"
    /// What may follow a clock time: the end of the text, punctuation, or a word that keeps it a time.
    static let afterTime =
        #"(?=\s*$|\s*[.,;!?)]|\s+(?:a\.?m\.?|p\.?m\.?|am|pm|o'clock|sharp|tomorrow|today|tonight|this|that|"#
        + #"in|on|from|and|or|every|each|then|local|please)\b)"#
    /// Nouns after which a number is an identifier, not a quantity.
    static let identifierWords = "number|no\\.|id|order|room|flight|code|ticket|account|invoice|extension|ref"

    private static let time3or4 = try! NSRegularExpression(
        pattern: #"(?i)\b("# + timeWords + #")\s+(1[0-2]|[1-9])([0-5][0-9])(?![\d:%]|[.,]\d)"# + afterTime)
    private static let timeDotted = try! NSRegularExpression(
        pattern: #"(?i)\b("# + timeWords + #")\s+(1[0-2]|[1-9])\.([0-5][0-9])(?![\d%]|[.,]\d)"# + afterTime)
    private static let identifier = try! NSRegularExpression(
        pattern: #"(?i)\b("# + identifierWords + #")\s+(\d{1,3}(?:,\d{3})+)(?!\d|[.,]\d)"#)

    /// `text` with the rules applied; text in other languages is returned as it is.
    public static func apply(_ text: String, language: String?) -> String {
        guard language == "en", text.contains(where: \.isNumber) else { return text }
        var result = text
        for expression in [time3or4, timeDotted] {
            result = expression.stringByReplacingMatches(
                in: result, range: NSRange(result.startIndex..., in: result), withTemplate: "$1 $2:$3")
        }
        let range = NSRange(result.startIndex..., in: result)
        for match in identifier.matches(in: result, range: range).reversed() {
            guard let digits = Range(match.range(at: 2), in: result) else { continue }
            result.replaceSubrange(digits, with: result[digits].replacingOccurrences(of: ",", with: ""))
        }
        return result
    }
}
