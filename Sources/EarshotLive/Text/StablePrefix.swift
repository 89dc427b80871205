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
/// Words are compared without case and punctuation (Whisper's "Hello," and "hello" are the same word), and the
/// text shown is the newer hypothesis's spelling. Each call returns only the new text to append (a delta).
public struct StablePrefix: Sendable {
    /// The words shown so far.
    public private(set) var shown: [String] = []
    private var previous: [String] = []

    public init() {}

    /// Takes the next partial hypothesis of the whole utterance and returns the newly stable text ("" when none).
    public mutating func agree(with hypothesis: String) -> String {
        let words = Self.words(hypothesis)
        defer { previous = words }
        var agreed = 0
        while agreed < min(words.count, previous.count), Self.same(words[agreed], previous[agreed]) { agreed += 1 }
        guard agreed > shown.count else { return "" }
        // Only extend: a hypothesis that drifts from what is shown adds nothing until it agrees again.
        for index in 0..<shown.count where !Self.same(words[index], shown[index]) { return "" }
        let added = Array(words[shown.count..<agreed])
        let delta = (shown.isEmpty ? "" : " ") + added.joined(separator: " ")
        shown += added
        return delta
    }

    /// Takes the final text of the utterance and returns what remains to append after the shown words (all of it
    /// when nothing was shown; the words past the shown ones when the final text begins with them; nothing else can
    /// be taken back, so a final text that disagrees only adds its words past the shown count).
    public mutating func finish(with text: String) -> String {
        let words = Self.words(text)
        guard words.count > shown.count else {
            shown = words
            return ""
        }
        let added = Array(words[shown.count...])
        let delta = (shown.isEmpty ? "" : " ") + added.joined(separator: " ")
        shown = words
        previous = words
        return delta
    }

    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
    }

    static func same(_ a: String, _ b: String) -> Bool {
        normalized(a) == normalized(b)
    }

    private static func normalized(_ word: String) -> String {
        String(word.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
