/// Splits text into the terms sentence ranking compares: lowercased words for space-separated scripts (minus
/// stopwords), overlapping character bigrams for scripts written without spaces (Chinese, Japanese, Thai).
enum Terms {
    static func of(_ text: String) -> [String] {
        var terms: [String] = []
        var word = ""
        var run: [Character] = []

        func flushWord() {
            if word.count > 1, !stopwords.contains(word) { terms.append(word) }
            word = ""
        }
        func flushRun() {
            if run.count == 1 {
                terms.append(String(run[0]))
            } else if run.count > 1 {
                for index in 0..<(run.count - 1) { terms.append(String(run[index...index + 1])) }
            }
            run = []
        }

        for character in text.lowercased() {
            if isUnspacedScript(character) {
                flushWord()
                run.append(character)
            } else if character.isLetter || character.isNumber || character == "'" {
                flushRun()
                word.append(character)
            } else {
                flushWord()
                flushRun()
            }
        }
        flushWord()
        flushRun()
        return terms
    }

    /// Han, kana and Thai: scripts whose words are not separated by spaces.
    static func isUnspacedScript(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x0E00...0x0E7F, 0x20000...0x2FFFF:
            return true
        default:
            return false
        }
    }

    /// Function words of the Latin-script languages plus English fillers common in speech.
    static let stopwords: Set<String> = {
        var all = Set(LanguageDetector.stopwords.flatMap(\.1))
        all.formUnion([
            "um", "uh", "yeah", "okay", "ok", "so", "like", "just", "really", "well", "oh", "know", "think", "get",
            "got", "going", "can", "could", "me", "us", "them", "him", "an", "a", "as", "or", "if", "then", "than",
            "all", "some", "very", "also", "about", "into", "out", "up", "down", "no", "yes", "one", "its", "it's",
            "i'm", "don't", "that's", "there's", "these", "those", "who", "when", "where", "how", "why", "did",
            "does", "had", "said", "say", "says", "more", "any", "other", "such", "only", "own", "same", "too", "here",
        ])
        return all
    }()
}

/// A conservative estimate of how many tokens a text takes (prompts are sized with it, so erring high is safe):
/// about 3.5 ASCII characters per token, two tokens per other character (CJK, Cyrillic, Thai… in byte-level BPE).
enum TokenEstimate {
    static func of(_ text: String) -> Int {
        var ascii = 0
        var other = 0
        for scalar in text.unicodeScalars {
            if scalar.isASCII { ascii += 1 } else { other += 1 }
        }
        return (ascii * 2 + 6) / 7 + other * 2
    }
}
