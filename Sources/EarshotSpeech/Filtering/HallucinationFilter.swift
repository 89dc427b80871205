/// Guards applied to each decoded segment, in order, before anyone sees it.
///
/// Whisper's characteristic failures are text over silence ("Thank you.", subtitles credits) and loops (the same
/// words or sentence repeated to the end of the window). whisper.cpp's temperature fallback catches some of
/// them inside a window; this filter catches what gets through:
///
/// 1. **No speech**: a segment whose window the decoder itself judged silent (no-speech probability above
///    ``Configuration/noSpeechProbability``) *and* whose text is unconfident (mean log-probability below
///    ``Configuration/logProbability``) is dropped — OpenAI's rule.
/// 2. **Loops inside a segment**: a run of the same word n-gram (n = 1…``Configuration/maximumLoopLength``)
///    repeated more than ``Configuration/maximumRepeats`` times in a row is collapsed to one occurrence.
/// 3. **Compression ratio**: text that still compresses better than ``Configuration/compressionRatio`` (an LZ77
///    estimate, see ``compressionRatio(of:)``) is dropped.
/// 4. **Repeated tail**: a segment identical (case and punctuation aside) to the previous
///    ``Configuration/maximumIdenticalSegments`` segments is dropped; two in a row are kept ("Hello?" /
///    "Hello?" is a real exchange).
///
/// A value type fed one segment at a time (``admit(_:)``), so segments can be streamed as they are decoded.
public struct HallucinationFilter: Sendable {
    /// Thresholds; set a field to disable its guard as documented.
    public struct Configuration: Sendable, Hashable {
        /// Drop when the no-speech probability exceeds this (and the text is unconfident); > 1 disables.
        public var noSpeechProbability: Double = 0.6
        /// …and the mean log-probability is below this.
        public var logProbability: Double = -1.0
        /// Longest n-gram (in words) checked for loops; 0 disables.
        public var maximumLoopLength: Int = 8
        /// Repeats allowed in a row before a run counts as a loop: single words may repeat this many times,
        /// longer n-grams one time less (so "five five" and "go go go" stay, a phrase said three times goes).
        public var maximumRepeats: Int = 3
        /// Drop text whose estimated compression ratio exceeds this; `.infinity` disables.
        public var compressionRatio: Double = 2.4
        /// Identical segments kept in a row; 0 disables.
        public var maximumIdenticalSegments: Int = 2

        /// Default thresholds.
        public init() {}

        /// No filtering at all.
        public static let disabled: Configuration = {
            var configuration = Configuration()
            configuration.noSpeechProbability = 2
            configuration.maximumLoopLength = 0
            configuration.compressionRatio = .infinity
            configuration.maximumIdenticalSegments = 0
            return configuration
        }()
    }

    /// The thresholds in use.
    public let configuration: Configuration
    private var recentKeys: [String] = []

    /// A filter with `configuration`.
    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// The segment as it should be kept (loops collapsed), or nil to drop it.
    public mutating func admit(_ segment: Transcript.Segment) -> Transcript.Segment? {
        if segment.noSpeechProbability > configuration.noSpeechProbability,
            segment.averageLogProbability < configuration.logProbability
        {
            return nil
        }
        var segment = segment
        if configuration.maximumLoopLength > 0 {
            segment = Self.collapsingLoops(
                in: segment, maximumLength: configuration.maximumLoopLength,
                maximumRepeats: configuration.maximumRepeats)
        }
        if segment.text.isEmpty { return nil }
        if Self.compressionRatio(of: segment.text) > configuration.compressionRatio { return nil }
        if configuration.maximumIdenticalSegments > 0 {
            let key = Self.comparisonKey(segment.text)
            let limit = configuration.maximumIdenticalSegments
            if recentKeys.count >= limit, recentKeys.suffix(limit).allSatisfy({ $0 == key }) { return nil }
            recentKeys.append(key)
            if recentKeys.count > limit { recentKeys.removeFirst(recentKeys.count - limit) }
        }
        return segment
    }

    /// `text` lowercased with letters and digits only, for comparing segments.
    static func comparisonKey(_ text: String) -> String {
        String(
            text.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }
                .map(Character.init))
    }

    /// The segment with every looping run of word n-grams reduced to one occurrence (words and their times).
    static func collapsingLoops(in segment: Transcript.Segment, maximumLength: Int, maximumRepeats: Int)
        -> Transcript.Segment
    {
        let words = segment.text.split(whereSeparator: \.isWhitespace).map(String.init)
        let keep = loopFreeIndices(
            words.map(comparisonKey), maximumLength: maximumLength, maximumRepeats: maximumRepeats)
        guard keep.count < words.count else { return segment }
        var result = segment
        result.text = keep.map { words[$0] }.joined(separator: " ")
        if segment.words.count == words.count {
            result.words = keep.map { segment.words[$0] }
            if let last = result.words.last { result.endMs = min(segment.endMs, max(last.endMs, segment.startMs)) }
        } else if !segment.words.isEmpty {
            // Word tokens and whitespace words disagree (rare: punctuation-only tokens); keep times, drop words
            // past the collapsed text's length.
            result.words = Array(segment.words.prefix(keep.count))
        }
        return result
    }

    /// Indices of `tokens` to keep so that no n-gram (n ≤ `maximumLength`) repeats more than allowed in a row.
    static func loopFreeIndices(_ tokens: [String], maximumLength: Int, maximumRepeats: Int) -> [Int] {
        var kept: [Int] = []
        var index = 0
        while index < tokens.count {
            var skipped = false
            for length in 1...max(1, maximumLength) where index + length <= tokens.count {
                let allowed = length == 1 ? maximumRepeats : max(1, maximumRepeats - 1)
                // Count consecutive copies of tokens[index..<index+length].
                var copies = 1
                while index + (copies + 1) * length <= tokens.count,
                    tokens[(index + copies * length)..<(index + (copies + 1) * length)]
                        == tokens[index..<(index + length)]
                {
                    copies += 1
                }
                if copies > allowed {
                    kept.append(contentsOf: index..<(index + length))
                    index += copies * length
                    skipped = true
                    break
                }
            }
            if !skipped {
                kept.append(index)
                index += 1
            }
        }
        return kept
    }

    /// An estimate of how well `text` compresses: its UTF-8 size over the size of a greedy LZ77 parse
    /// (32 KiB window, matches ≥ 4 bytes costing 3 bytes, literals 1 byte; no entropy coding).
    ///
    /// Ordinary speech scores 1.0–1.4 on this scale; a phrase repeated four times scores above 2.4.
    public static func compressionRatio(of text: String) -> Double {
        let bytes = Array(text.utf8)
        guard bytes.count >= 16 else { return 1 }
        var last: [UInt32: Int] = [:]
        var cost = 0
        var position = 0
        func key(_ i: Int) -> UInt32 {
            UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
        }
        while position < bytes.count {
            var matchLength = 0
            if position + 4 <= bytes.count {
                let k = key(position)
                if let candidate = last[k], position - candidate <= 32_768 {
                    while position + matchLength < bytes.count,
                        bytes[candidate + matchLength] == bytes[position + matchLength],
                        matchLength < 258
                    {
                        matchLength += 1
                    }
                }
                last[k] = position
            }
            if matchLength >= 4 {
                for i in (position + 1)..<min(position + matchLength, bytes.count - 3) { last[key(i)] = i }
                cost += 3
                position += matchLength
            } else {
                cost += 1
                position += 1
            }
        }
        return Double(bytes.count) / Double(cost)
    }
}
