/// How requests map onto espeak-ng's own names: languages (ISO 639-1 or BCP 47 → an espeak-ng language), the
/// standard voices (→ a voice variant each) and speeds (→ words per minute).
enum EspeakVoices {
    /// The variant (`-v language+variant`) each standard voice speaks with: eleven distinct ones, five of them
    /// female.
    static func variant(of voice: StandardVoice) -> String {
        switch voice {
        case .alloy: "m3"
        case .ash: "m1"
        case .ballad: "m7"
        case .coral: "f2"
        case .echo: "m2"
        case .fable: "m4"
        case .onyx: "m6"
        case .nova: "f3"
        case .sage: "f4"
        case .shimmer: "f5"
        case .verse: "m5"
        }
    }

    /// espeak-ng's default pace at speed 1, in words per minute.
    static let normalRate = 175.0
    /// The slowest and fastest rates espeak-ng speaks at (it clamps others to these).
    static let rates = 80...450

    /// Words per minute for a relative `speed` (1 = normal), within ``rates``.
    static func wordsPerMinute(_ speed: Double) -> Int {
        min(rates.upperBound, max(rates.lowerBound, Int((normalRate * speed).rounded())))
    }

    /// Common tags whose espeak-ng name differs.
    static let aliases: [String: String] = [
        "en": "en-us", "zh": "cmn", "zh-cn": "cmn", "zh-hans": "cmn", "zh-sg": "cmn", "zh-tw": "cmn",
        "zh-hant": "cmn", "zh-hk": "yue", "fr": "fr-fr", "no": "nb", "nn": "nb", "iw": "he", "es-mx": "es-419",
        "pt-pt": "pt", "en-uk": "en-gb",
    ]

    /// The espeak-ng language for `tag` among `available` (espeak-ng's names, lower-cased), or nil.
    static func language(_ tag: String, available: Set<String>) -> String? {
        let tag = tag.lowercased().replacingOccurrences(of: "_", with: "-")
        let primary = String(tag.split(separator: "-").first ?? "")
        for candidate in [tag, aliases[tag], aliases[primary], primary] {
            if let candidate, available.contains(candidate) { return candidate }
        }
        return nil
    }

    /// The language names of `espeak-ng --voices` output (its second column), lower-cased.
    static func parseLanguages(_ listing: String) -> Set<String> {
        var names: Set<String> = []
        for line in listing.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            if columns.count >= 2 { names.insert(columns[1].lowercased()) }
        }
        return names
    }
}
