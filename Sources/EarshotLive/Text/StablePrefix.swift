/// The LocalAgreement-2 policy for partial text: a word is shown once two successive decodes of the growing
/// utterance agree on it (and on every word before it); shown words are never taken back.
///
/// ```swift
/// var stable = StablePrefix()
/// stable.agree(with: "the quick brown")     // "" — nothing to compare with yet
/// stable.agree(with: "the quick brown fox") // "the quick brown" — both decodes agree on three words
/// stable.finish(with: "the quick brown fox jumps")  // " fox jumps"
/// ```
///
/// Words are compared as ``tokens(_:)``: without case and punctuation (Whisper's "Hello," and "hello" are the same
/// word), hyphenated words split and English contractions spelled out (successive decodes of one turn alternated
/// between "there's" and "there is", which held back every later word of the turn until its final). The text shown
/// is the newer hypothesis's spelling. Each call returns only the new text to append (a delta).
public struct StablePrefix: Sendable {
    /// The words shown so far.
    public private(set) var shown: [String] = []
    /// The newest hypothesis's words after the shown ones: text not yet stable, which a caption can show after the
    /// stable words (greyed) until the next hypothesis replaces it. Empty once the final text is in.
    public private(set) var pending: [String] = []
    /// The tokens of the shown words.
    private var shownTokens: [String] = []
    /// The tokens of the previous hypothesis.
    private var previous: [String] = []

    public init() {}

    /// Takes the next partial hypothesis of the whole utterance and returns the newly stable text ("" when none).
    public mutating func agree(with hypothesis: String) -> String {
        let next = Hypothesis(hypothesis)
        defer {
            previous = next.tokens
            pending = next.words(after: shown, shownTokens)
        }
        // Only extend: a hypothesis that drifts from what is shown adds nothing until it agrees again.
        guard next.tokens.starts(with: shownTokens) else { return "" }
        let agreed = zip(next.tokens, previous).prefix { $0 == $1 }.count
        guard agreed > shownTokens.count, let added = next.words(from: shownTokens.count, upTo: agreed) else {
            return ""
        }
        let delta = Self.delta(appending: next.words[added], to: shown)
        shown += next.words[added]
        shownTokens = Array(next.tokens[..<next.ends[added.upperBound - 1]])
        return delta
    }

    /// Takes the final text of the utterance and returns what remains to append after the shown words (all of it
    /// when nothing was shown; the words past the shown ones when the final text begins with them; nothing else can
    /// be taken back, so a final text that disagrees only adds its words past the shown count).
    public mutating func finish(with text: String) -> String {
        let final = Hypothesis(text)
        defer {
            shown = final.words
            shownTokens = final.tokens
            previous = final.tokens
            pending = []
        }
        if shown.isEmpty { return final.words.joined(separator: " ") }
        let rest = final.words(after: shown, shownTokens)
        return rest.isEmpty ? "" : Self.delta(appending: rest[...], to: shown)
    }

    private static func delta(appending words: ArraySlice<String>, to shown: [String]) -> String {
        (shown.isEmpty ? "" : " ") + words.joined(separator: " ")
    }

    /// What a word is compared as: lowercase letters and digits, a hyphenated word as its parts ("ill-disposed":
    /// "ill", "disposed"), and an English contraction spelled out ("there's": "there", "is"; "don't": "do", "not";
    /// "can't": "can", "not"). Punctuation alone is no token.
    static func tokens(_ word: String) -> [String] {
        var tokens: [String] = []
        let parts = word.lowercased().split(whereSeparator: { "-‐‑–—".contains($0) })
        for part in parts {
            let letters = String(
                part.map { $0 == "’" ? "'" : $0 }.filter { $0.isLetter || $0.isNumber || $0 == "'" })
            if let spelled = irregular[letters] {
                tokens += spelled
                continue
            }
            if let (suffix, spelled) = contractions.first(where: {
                letters.count > $0.0.count && letters.hasSuffix($0.0)
            }) {
                let stem = clean(letters.dropLast(suffix.count))
                if !stem.isEmpty { tokens.append(stem) }
                tokens.append(spelled)
                continue
            }
            let token = clean(letters[...])
            if !token.isEmpty { tokens.append(token) }
        }
        return tokens
    }

    private static func clean(_ text: Substring) -> String { String(text.filter { $0 != "'" }) }

    private static let irregular: [String: [String]] = [
        "can't": ["can", "not"], "won't": ["will", "not"], "shan't": ["shall", "not"], "ain't": ["is", "not"],
    ]
    private static let contractions: [(String, String)] = [
        ("n't", "not"), ("'re", "are"), ("'ve", "have"), ("'ll", "will"), ("'m", "am"), ("'d", "would"), ("'s", "is"),
    ]

    /// A hypothesis's words, their tokens laid end to end, and where each word's tokens end.
    struct Hypothesis {
        let words: [String]
        let tokens: [String]
        /// `ends[i]`: the number of tokens of words `0...i`.
        let ends: [Int]

        init(_ text: String) {
            self.init(words: text.split(whereSeparator: { $0.isWhitespace }).map(String.init))
        }

        init(words: [String]) {
            self.words = words
            var tokens: [String] = []
            var ends: [Int] = []
            for word in words {
                tokens += StablePrefix.tokens(word)
                ends.append(tokens.count)
            }
            (self.tokens, self.ends) = (tokens, ends)
        }

        /// The words after `shown` (whose tokens are `shownTokens`): from the word boundary where the shown tokens
        /// end when this hypothesis begins with them, else past as many words as are shown.
        func words(after shown: [String], _ shownTokens: [String]) -> [String] {
            if tokens.starts(with: shownTokens) {
                if tokens.count == shownTokens.count { return [] }
                if let rest = words(from: shownTokens.count, upTo: tokens.count) { return Array(words[rest]) }
            }
            return Array(words.dropFirst(shown.count))
        }

        /// The words whose tokens start at token `start` (a word boundary) and end by token `end`; nil when no word
        /// starts at `start` or none ends by `end` with a token of its own.
        func words(from start: Int, upTo end: Int) -> Range<Int>? {
            guard let first = ends.indices.first(where: { ($0 == 0 ? 0 : ends[$0 - 1]) == start && ends[$0] > start })
            else { return nil }
            // Punctuation standing alone just before the first word goes with it.
            var lower = first
            while lower > 0, ends[lower - 1] == start, (lower == 1 ? 0 : ends[lower - 2]) == start { lower -= 1 }
            guard let last = ends.indices.last(where: { $0 >= first && ends[$0] <= end }) else { return nil }
            return lower..<(last + 1)
        }
    }
}
