/// English number words to digits (see ``NormalizationRule/numerals``). Works on whitespace tokens after
/// punctuation has become spaces; hyphenated number words (`twenty-three`) are handled too.
enum EnglishNumbers {
    static let ones: [String: Int] = [
        "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
        "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    ]
    static let tens: [String: Int] = [
        "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
        "ninety": 90,
    ]
    static let scales: [String: Int] = ["thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000]
    static let ordinalOnes: [String: Int] = [
        "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
        "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
        "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
    ]
    static let ordinalTens: [String: Int] = [
        "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70,
        "eightieth": 80, "ninetieth": 90,
    ]
    static let ordinalScales: [String: Int] = [
        "hundredth": 100, "thousandth": 1_000, "millionth": 1_000_000, "billionth": 1_000_000_000,
    ]

    /// A number read from words, with how it was spoken (used by the year and time rules).
    struct Spoken {
        var value: Int
        var text: String
        /// Said as one group below 100 with no scale word (`nineteen`, `ninety nine`): a year half.
        var isPair: Bool
    }

    enum Item {
        case number(Spoken)
        case word(String)
    }

    static func normalize(_ text: String) -> String {
        var tokens: [String] = []
        for raw in text.split(whereSeparator: \.isWhitespace) {
            let token = String(raw)
            if token.hasSuffix("%"), token.count > 1 {
                tokens.append(String(token.dropLast()))
                tokens.append("percent")
            } else if token.contains("-"), token.split(separator: "-").allSatisfy({ isNumberWord(String($0)) }) {
                tokens.append(contentsOf: token.split(separator: "-").map(String.init))
            } else {
                tokens.append(token)
            }
        }
        let items = parse(tokens)
        return joinYearsAndTimes(items).joined(separator: " ")
    }

    static func isNumberWord(_ word: String) -> Bool {
        ones[word] != nil || tens[word] != nil || scales[word] != nil || word == "hundred"
            || ordinalOnes[word] != nil || ordinalTens[word] != nil || ordinalScales[word] != nil
    }

    static func ordinalSuffix(_ value: Int) -> String {
        if (11...13).contains(value % 100) { return "th" }
        switch value % 10 {
        case 1: return "st"
        case 2: return "nd"
        case 3: return "rd"
        default: return "th"
        }
    }

    private enum Last { case none, unit, teen, tens, hundred, scale }

    /// Greedy left-to-right reading of number phrases.
    static func parse(_ tokens: [String]) -> [Item] {
        var items: [Item] = []
        var total = 0
        var group = 0
        var last = Last.none
        var lastScale = Int.max
        var words = 0
        var isPair = true

        func flush() {
            guard last != .none else { return }
            let value = total + group
            items.append(.number(Spoken(value: value, text: String(value), isPair: isPair && words <= 2)))
            total = 0
            group = 0
            last = .none
            lastScale = Int.max
            words = 0
            isPair = true
        }

        var k = 0
        while k < tokens.count {
            let word = tokens[k]
            defer { k += 1 }
            if let value = ones[word] {
                let fits: Bool
                if value < 10 {
                    fits = last == .none || last == .hundred || last == .scale || (last == .tens && group % 10 == 0)
                } else {
                    fits = last == .none || last == .hundred || last == .scale
                }
                if !fits { flush() }
                group += value
                last = value < 10 ? .unit : .teen
                words += 1
                continue
            }
            if let value = tens[word] {
                if !(last == .none || last == .hundred || last == .scale) { flush() }
                group += value
                last = .tens
                words += 1
                continue
            }
            if word == "hundred" {
                guard last == .unit || last == .teen, group > 0, group < 100 else {
                    flush()
                    items.append(.word(word))
                    continue
                }
                group *= 100
                last = .hundred
                isPair = false
                words += 1
                continue
            }
            if let scale = scales[word] {
                guard last != .none, last != .scale, scale < lastScale, group > 0 else {
                    flush()
                    items.append(.word(word))
                    continue
                }
                total += group * scale
                group = 0
                last = .scale
                lastScale = scale
                isPair = false
                words += 1
                continue
            }
            if word == "and", last == .hundred || last == .scale, k + 1 < tokens.count,
                ones[tokens[k + 1]] != nil || tens[tokens[k + 1]] != nil
            {
                continue
            }
            if let value = ordinalOnes[word] ?? ordinalTens[word] {
                let isUnit = ordinalOnes[word] != nil && value < 10
                let fits =
                    last == .none || last == .hundred || last == .scale || (isUnit && last == .tens && group % 10 == 0)
                if !fits { flush() }
                let number = total + group + value
                items.append(.word("\(number)\(ordinalSuffix(number))"))
                (total, group, last, lastScale, words, isPair) = (0, 0, .none, Int.max, 0, true)
                continue
            }
            if let scale = ordinalScales[word] {
                let base = last == .none ? 1 : (scale == 100 ? total + group * 100 : total + group * scale)
                let number = last == .none ? scale : base
                items.append(.word("\(number)\(ordinalSuffix(number))"))
                (total, group, last, lastScale, words, isPair) = (0, 0, .none, Int.max, 0, true)
                continue
            }
            if word == "point", last != .none, k + 1 < tokens.count, let first = ones[tokens[k + 1]], first < 10 {
                var digits = ""
                var j = k + 1
                while j < tokens.count, let digit = ones[tokens[j]], digit < 10 {
                    digits += String(digit)
                    j += 1
                }
                let value = total + group
                items.append(.word("\(value).\(digits)"))
                (total, group, last, lastScale, words, isPair) = (0, 0, .none, Int.max, 0, true)
                k = j - 1
                continue
            }
            flush()
            items.append(.word(word))
        }
        flush()
        return items
    }

    /// `nineteen ninety nine` → `1999`, `nineteen oh five` → `1905`, `nine oh five` → `9 05`.
    static func joinYearsAndTimes(_ items: [Item]) -> [String] {
        var out: [String] = []
        var k = 0
        while k < items.count {
            guard case .number(let first) = items[k] else {
                if case .word(let word) = items[k] { out.append(word) }
                k += 1
                continue
            }
            // "oh" + single digit after an hour or a year half.
            if k + 2 < items.count, case .word("oh") = items[k + 1], case .number(let digit) = items[k + 2],
                digit.isPair, digit.value >= 1, digit.value <= 9, first.isPair, first.value >= 1
            {
                if first.value >= 13 && first.value <= 99 {
                    out.append("\(first.value)0\(digit.value)")
                    k += 3
                    continue
                }
                if first.value <= 12 {
                    out.append(first.text)
                    out.append("0\(digit.value)")
                    k += 3
                    continue
                }
            }
            // Two spoken pairs where the first cannot be an hour: a year.
            if k + 1 < items.count, case .number(let second) = items[k + 1], first.isPair, second.isPair,
                (13...99).contains(first.value), (10...99).contains(second.value)
            {
                out.append("\(first.value)\(second.value)")
                k += 2
                continue
            }
            out.append(first.text)
            k += 1
        }
        return out
    }
}
