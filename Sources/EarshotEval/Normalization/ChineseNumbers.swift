/// Chinese numerals to digits (see ``NormalizationRule/numerals``).
enum ChineseNumbers {
    static let digits: [Character: Int] = [
        "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
        "九": 9,
    ]
    static let units: [Character: Int] = [
        "十": 10, "百": 100, "千": 1_000, "万": 10_000, "萬": 10_000, "亿": 100_000_000, "億": 100_000_000,
    ]
    /// Measure words and counted nouns after which a lone numeral character is a number.
    static let measures: Set<Character> = [
        "个", "個", "年", "月", "日", "号", "號", "点", "點", "岁", "歲", "次", "本", "只", "隻", "位", "元", "块", "塊",
        "分", "秒", "天", "人", "件", "台", "张", "張", "条", "條", "斤", "米", "倍", "层", "層", "楼", "樓", "辆",
        "輛", "周", "种", "種", "项", "項", "家", "名", "场", "場", "首", "部", "套", "份", "遍", "棵", "口", "角",
        "克", "公", "小", "星", "成", "折", "度", "页", "頁", "章", "节", "節", "句", "门", "門", "双", "雙", "对",
        "對",
    ]
    static let percentPrefix: [Character] = ["百", "分", "之"]
    static let decimalPoint: Set<Character> = ["点", "點"]
    /// After `三点五`, these mean a clock time, not a decimal.
    static let timeMarkers: Set<Character> = ["分", "刻", "钟", "鐘", "半"]

    static func isNumeral(_ c: Character) -> Bool { digits[c] != nil || units[c] != nil }

    static func normalize(_ text: String) -> String {
        let chars = Array(text)
        var out = ""
        var k = 0
        while k < chars.count {
            // 百分之 + numeral → N%
            if k + 3 < chars.count, Array(chars[k..<(k + 3)]) == percentPrefix, isNumeral(chars[k + 3]) {
                var end = k + 3
                while end < chars.count, isNumeral(chars[end]) { end += 1 }
                if let value = value(of: chars[(k + 3)..<end]) {
                    let (decimal, next) = decimalTail(chars, from: end)
                    out += "\(value)\(decimal)%"
                    k = next
                    continue
                }
            }
            guard isNumeral(chars[k]) else {
                out.append(chars[k])
                k += 1
                continue
            }
            var end = k
            while end < chars.count, isNumeral(chars[end]) { end += 1 }
            let run = chars[k..<end]
            let next = end < chars.count ? chars[end] : nil
            let standalone =
                run.count >= 2 || run.first == "两" || run.first == "兩" || next.map(measures.contains) == true
            let startsWithBigUnit = units[run.first!].map { $0 > 10 } ?? false
            if standalone, !startsWithBigUnit, let value = value(of: run) {
                let (decimal, after) = decimalTail(chars, from: end)
                out += value + decimal
                k = after
            } else {
                out += String(run)
                k = end
            }
        }
        return out
    }

    /// `点` + digit characters (not a clock time) → ".d…", and the index after it.
    static func decimalTail(_ chars: [Character], from index: Int) -> (String, Int) {
        guard index < chars.count, decimalPoint.contains(chars[index]) else { return ("", index) }
        var end = index + 1
        var fraction = ""
        while end < chars.count, let digit = digits[chars[end]] {
            fraction += String(digit)
            end += 1
        }
        if fraction.isEmpty { return ("", index) }
        if end < chars.count, timeMarkers.contains(chars[end]) { return ("", index) }
        return ("." + fraction, end)
    }

    /// The digits a run of numeral characters stands for, or nil when the run is not one well-formed number
    /// (for example `三七二十一`).
    static func value(of run: ArraySlice<Character>) -> String? {
        if run.allSatisfy({ digits[$0] != nil }) {
            return run.map { String(digits[$0]!) }.joined()  // 二零二四 → 2024
        }
        let chars = Array(run)
        var total = 0  // everything already multiplied by 万 or 亿
        var section = 0  // the part below 万 being read
        var number: Int? = nil  // a digit waiting for its unit
        var lastUnit = 0
        for (index, c) in chars.enumerated() {
            if let digit = digits[c] {
                if let number, number != 0 || index == 0 { return nil }  // two digits in a row: 三七二十一
                number = digit
                continue
            }
            let unit = units[c]!
            if unit >= 10_000 {
                let part = section + (number ?? 0)
                if part == 0 && total == 0 { return nil }
                total = unit == 100_000_000 ? (total + part) * unit : total + part * unit
                section = 0
            } else {
                var multiplier = number
                if multiplier == nil || multiplier == 0 {
                    // 十五 = 15 and 一百零十 style: a bare 十 counts one ten; any other bare unit is malformed.
                    guard unit == 10 else { return nil }
                    multiplier = 1
                }
                section += multiplier! * unit
            }
            number = nil
            lastUnit = unit
        }
        if let number {
            // 一百二 = 120, 三千五 = 3500, 两万五 = 25000: a digit right after a unit counts in the next smaller
            // unit; after 零 it counts as itself (一百零二 = 102).
            if lastUnit >= 100, chars.count >= 2, units[chars[chars.count - 2]] != nil {
                section += number * (lastUnit / 10)
            } else {
                section += number
            }
        }
        return String(total + section)
    }
}
