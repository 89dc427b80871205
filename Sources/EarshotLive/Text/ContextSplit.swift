/// Where an item's words begin in a decode of the audio said before it followed by the item.
///
/// A short utterance decoded alone reads worse than the same words inside a longer window (Whisper was trained on
/// 30 s windows; "the contract expires" alone came back as "contract, I am"). A final decode therefore runs over the
/// side's previous items and then the item (``RealtimeTranscriptionSession/AudioContext``), and this finds where the
/// previous items' words end in the result: by their text, not by the decode's word times, which put an item's
/// first words up to a second early.
///
/// The split is the word boundary whose words before it are closest (edit distance over ``StablePrefix/tokens(_:)``)
/// to what was said before; among equally close boundaries, the one whose next word starts nearest the end of the
/// context audio (or, without times, the last one: a context word read differently is more likely than an item
/// word that repeats the context).
enum ContextSplit {
    /// The index of the first word of the item in `words`, or nil when the words do not begin with something close to
    /// `context` (the decode read the context too differently to be trusted: more than a third of its tokens wrong).
    ///
    /// - Parameters:
    ///   - words: the decode's words, in order.
    ///   - starts: each word's start in milliseconds from the start of the decoded audio, or empty when unknown.
    ///   - context: the text said before the item (its words, whitespace-separated).
    ///   - contextMs: where the item's audio starts in the decoded audio.
    static func itemStart(of words: [String], starts: [Int], context: String, contextMs: Int) -> Int? {
        let said = StablePrefix.Hypothesis(context).tokens
        guard !said.isEmpty else { return 0 }
        guard !words.isEmpty else { return nil }
        let decoded = StablePrefix.Hypothesis(words: words)
        let tokens = decoded.tokens
        // distance[j]: the edit distance between `said` and the decode's first j tokens.
        var distance = Array(0...tokens.count)
        for (i, token) in said.enumerated() {
            var diagonal = distance[0]
            distance[0] = i + 1
            for j in tokens.indices {
                let next = min(distance[j + 1] + 1, distance[j] + 1, diagonal + (tokens[j] == token ? 0 : 1))
                diagonal = distance[j + 1]
                distance[j + 1] = next
            }
        }
        // Boundaries after at least one word; the one after the last word means the decode has no word of the item.
        let timed = starts.count == words.count
        var best: (cost: Int, miss: Int, word: Int)?
        for word in 1...words.count {
            let cost = distance[decoded.ends[word - 1]]
            let miss = word == words.count ? 0 : timed ? abs(starts[word] - contextMs) : words.count - word
            if best == nil || (cost, miss) < (best!.cost, best!.miss) { best = (cost, miss, word) }
        }
        guard let best, best.word < words.count, best.cost * 3 <= said.count else { return nil }
        return best.word
    }
}
