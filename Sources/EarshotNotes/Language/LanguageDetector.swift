/// Tells which language a text is in, for the 14 translation targets: by script for zh, ja, ko, th, ar, hi and ru,
/// by stopwords for the Latin-script languages (en, fr, de, es, it, pt, vi).
///
/// Made for checking a model's output ("is this Japanese?"), not for general identification: it answers only
/// those 14 languages, and nil when the text is too short or too mixed to tell.
public enum LanguageDetector {
    /// The detected language (ISO 639-1), or nil when the text has fewer than `minimumLetters` letters or no
    /// language clearly dominates.
    public static func detect(_ text: String, minimumLetters: Int = 6) -> String? {
        var counts = ScriptCounts()
        for scalar in text.unicodeScalars { counts.add(scalar) }
        guard counts.letters >= minimumLetters else { return nil }
        let letters = Double(counts.letters)
        // Japanese mixes kana into Han; Chinese has none.
        let cjk = Double(counts.han + counts.kana)
        if cjk >= 0.5 * letters, Double(counts.kana) >= 0.05 * cjk { return "ja" }
        let scripts: [(String, Int)] = [
            ("zh", counts.han), ("ko", counts.hangul), ("th", counts.thai), ("ar", counts.arabic),
            ("hi", counts.devanagari), ("ru", counts.cyrillic),
        ]
        if let (language, count) = scripts.max(by: { $0.1 < $1.1 }), Double(count) >= 0.5 * letters {
            return language
        }
        guard Double(counts.latin) >= 0.5 * letters else { return nil }
        return latinLanguage(text)
    }

    /// The Latin-script language whose stopwords cover most words, if it covers at least 15 % of them and clearly
    /// more than the runner-up.
    static func latinLanguage(_ text: String) -> String? {
        let words = text.lowercased().split { !$0.isLetter && $0 != "'" }.map(String.init)
        guard !words.isEmpty else { return nil }
        var scores: [(String, Int)] = []
        for (language, list) in stopwords {
            scores.append((language, words.reduce(0) { $0 + (list.contains($1) ? 1 : 0) }))
        }
        // Vietnamese writes many one-syllable words with letters no other language here uses.
        let vietnamese = text.unicodeScalars.filter { vietnameseLetters.contains($0) }.count
        if vietnamese >= max(2, words.count / 5) { return "vi" }
        scores.sort { $0.1 > $1.1 }
        let (best, bestScore) = scores[0]
        let runnerUp = scores[1].1
        guard bestScore >= 1, Double(bestScore) >= 0.15 * Double(words.count), bestScore > runnerUp else { return nil }
        return best
    }

    private struct ScriptCounts {
        var letters = 0, latin = 0, han = 0, kana = 0, hangul = 0, thai = 0, arabic = 0, devanagari = 0, cyrillic = 0

        mutating func add(_ scalar: Unicode.Scalar) {
            let value = scalar.value
            switch value {
            case 0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9D: kana += 1
            case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0xF900...0xFAFF, 0x20000...0x2FFFF: han += 1
            case 0xAC00...0xD7AF, 0x1100...0x11FF, 0x3130...0x318F: hangul += 1
            case 0x0E00...0x0E7F: thai += 1
            case 0x0600...0x06FF, 0x0750...0x077F, 0xFB50...0xFDFF, 0xFE70...0xFEFF: arabic += 1
            case 0x0900...0x097F: devanagari += 1
            case 0x0400...0x04FF: cyrillic += 1
            case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x1E00...0x1EFF: latin += 1
            default:
                if scalar.properties.isAlphabetic { letters += 1 }
                return
            }
            // Thai and Devanagari combining vowel signs are not "alphabetic" for every scalar; count them all.
            letters += 1
        }
    }

    static let vietnameseLetters = Set(
        "ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹĂÂĐÊÔƠƯ".unicodeScalars)

    /// The most frequent function words of each Latin-script language; chosen so that lists overlap little.
    static let stopwords: [(String, Set<String>)] = [
        (
            "en",
            [
                "the", "and", "is", "are", "was", "were", "of", "to", "in", "that", "it", "with", "for", "this",
                "you", "we", "they", "have", "has", "be", "will", "not", "but", "what", "on", "at", "from", "he",
                "she", "his", "her", "i", "my", "our", "your", "would", "there", "their", "which", "been", "do",
            ]
        ),
        (
            "fr",
            [
                "le", "la", "les", "des", "est", "et", "un", "une", "du", "dans", "que", "qui", "pour", "pas", "sur",
                "nous", "vous", "ils", "elle", "avec", "ce", "cette", "sont", "au", "aux", "mais", "je", "il", "ne",
                "plus", "être", "été", "fait", "leur", "très", "c'est", "j'ai",
            ]
        ),
        (
            "de",
            [
                "der", "die", "das", "und", "ist", "nicht", "ein", "eine", "zu", "den", "mit", "sich", "auf", "für",
                "ich", "wir", "sie", "es", "dem", "von", "auch", "sind", "war", "wird", "werden", "haben", "aber",
                "noch", "nach", "bei", "einen", "wie", "oder", "dass", "über",
            ]
        ),
        (
            "es",
            [
                "el", "los", "las", "es", "y", "en", "que", "del", "una", "por", "con", "para", "como", "pero", "su",
                "sus", "está", "son", "muy", "nosotros", "yo", "lo", "al", "más", "este", "esta", "hay", "también",
                "porque", "fue", "ser", "tiene",
            ]
        ),
        (
            "it",
            [
                "il", "lo", "gli", "della", "delle", "è", "e", "di", "che", "per", "non", "sono", "con", "una", "uno",
                "del", "nel", "alla", "come", "ma", "anche", "io", "noi", "questo", "questa", "molto", "hanno", "ho",
                "sul", "dei", "più", "essere",
            ]
        ),
        (
            "pt",
            [
                "o", "os", "as", "é", "e", "do", "da", "dos", "das", "em", "que", "não", "um", "uma", "para", "com",
                "por", "mais", "na", "no", "nós", "eu", "ele", "ela", "são", "está", "foi", "muito", "também", "isso",
                "ao", "mas", "você",
            ]
        ),
        (
            "vi",
            [
                "và", "của", "là", "không", "có", "các", "những", "được", "cho", "một", "này", "với", "người",
                "chúng", "tôi", "trong", "đã", "sẽ", "để", "khi", "thì", "như", "ra", "cũng", "đó",
            ]
        ),
    ]
}
