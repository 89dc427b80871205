/// Rewrites the `?` placeholders of portable SQL into PostgreSQL's numbered `$1, $2, …`.
///
/// `?` inside string literals (`'…'`, with `''` escapes), quoted identifiers (`"…"`), dollar-quoted strings
/// (`$$…$$`, `$tag$…$tag$`) and comments (`-- …`, `/* … */`) is left alone. Earshot's SQL does not use PostgreSQL's
/// `?` JSON operators, which this rewrite would mistake for placeholders.
enum Placeholders {
    /// The rewritten SQL and how many placeholders it has.
    static func rewrite(_ sql: String) -> (sql: String, count: Int) {
        let bytes = Array(sql.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var count = 0
        var index = 0
        func copy(until end: Int) {
            out.append(contentsOf: bytes[index..<min(end, bytes.count)])
            index = min(end, bytes.count)
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                var end = index + 1
                while end < bytes.count {
                    if bytes[end] == byte {
                        if end + 1 < bytes.count && bytes[end + 1] == byte {
                            end += 2
                            continue
                        }
                        break
                    }
                    end += 1
                }
                copy(until: end + 1)
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                var end = index
                while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
                copy(until: end)
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                var end = index + 2
                while end + 1 < bytes.count && !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) {
                    end += 1
                }
                copy(until: end + 2)
            case UInt8(ascii: "$"):
                // A dollar quote: $tag$ … $tag$ (tag empty or an identifier); otherwise a plain character.
                var tagEnd = index + 1
                while tagEnd < bytes.count, isTagByte(bytes[tagEnd]) { tagEnd += 1 }
                if tagEnd < bytes.count, bytes[tagEnd] == UInt8(ascii: "$"),
                    tagEnd == index + 1 || !isDigit(bytes[index + 1])
                {
                    let tag = Array(bytes[index...tagEnd])
                    var end = tagEnd + 1
                    while end + tag.count <= bytes.count && Array(bytes[end..<end + tag.count]) != tag { end += 1 }
                    copy(until: end + tag.count)
                } else {
                    copy(until: index + 1)
                }
            case UInt8(ascii: "?"):
                count += 1
                out.append(UInt8(ascii: "$"))
                out.append(contentsOf: Array(String(count).utf8))
                index += 1
            default:
                copy(until: index + 1)
            }
        }
        return (String(decoding: out, as: UTF8.self), count)
    }

    private static func isTagByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"): true
        case UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: byte >= 0x80
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
