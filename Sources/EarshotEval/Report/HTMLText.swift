/// Escaping and number formatting for the HTML report.
enum HTMLText {
    /// `text` safe inside element content and quoted attribute values: `& < > " '` become entities.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// `0.1234` → `12.34%`.
    static func percent(_ value: Double) -> String { fixed(value * 100, decimals: 2) + "%" }

    /// A fixed-point number without Foundation's locale.
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "—" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (abs(value) * scale).rounded()
        let whole = Int(rounded / scale)
        let fraction = Int(rounded - Double(whole) * scale)
        var text = (value < 0 && rounded > 0 ? "-" : "") + String(whole)
        if decimals > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return text
    }

    /// Seconds as `12.3 s` or `4 min 05.2 s`.
    static func seconds(_ value: Double) -> String {
        if value < 60 { return fixed(value, decimals: 2) + " s" }
        let minutes = Int(value / 60)
        let rest = value - Double(minutes * 60)
        return "\(minutes) min " + (rest < 10 ? "0" : "") + fixed(rest, decimals: 1) + " s"
    }
}
