/// Expansion of English contractions, word by word. Our own table, in the spirit of Whisper's English
/// normaliser: negations, pronoun + auxiliary, and `'s` only after words where it can only mean "is".
enum EnglishContractions {
    static let whole: [String: String] = [
        "won't": "will not", "can't": "can not", "cannot": "can not", "shan't": "shall not", "ain't": "is not",
        "let's": "let us", "y'all": "you all", "ma'am": "madam", "o'clock": "o'clock",
        "it's": "it is", "that's": "that is", "there's": "there is", "here's": "here is", "what's": "what is",
        "where's": "where is", "who's": "who is", "how's": "how is", "he's": "he is", "she's": "she is",
        "when's": "when is", "why's": "why is",
    ]
    static let suffixes: [(String, String)] = [
        ("n't", " not"), ("'re", " are"), ("'ve", " have"), ("'ll", " will"), ("'m", " am"), ("'d", " would"),
    ]

    static func expand(_ text: String) -> String {
        var out = ""
        var word = ""
        func flush() {
            if !word.isEmpty { out += expandWord(word) }
            word = ""
        }
        for character in text {
            if character.isLetter || character == "'" || character == "\u{2019}" {
                word.append(character == "\u{2019}" ? "'" : character)
            } else {
                flush()
                out.append(character)
            }
        }
        flush()
        return out
    }

    static func expandWord(_ word: String) -> String {
        let lower = word.lowercased()
        if let expansion = whole[lower] { return expansion }
        for (suffix, expansion) in suffixes where lower.hasSuffix(suffix) && lower.count > suffix.count {
            return String(word.dropLast(suffix.count)) + expansion
        }
        return word
    }
}
