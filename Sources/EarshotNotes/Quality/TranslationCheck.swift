/// The quality gate of a transcript translation: checks suited to translated text, segment by segment, and a
/// verdict.
///
/// Each output segment is held against its source segment:
/// - **language**: the output must read as the target (``LanguageDetector``); a segment long enough to tell that
///   reads as no known language is counted as unrecognised (usually garbled output);
/// - **untranslated**: the source text came back unchanged;
/// - **loops**: the output repeats a word, phrase or syllable (few distinct terms or character trigrams), or the
///   same sentence comes back for three or more different source segments (a small model's habit of inventing
///   one sentence and repeating it);
/// - **commentary**: the output talks about translating ("This is a French translation of…") when the source
///   does not;
/// - **length**: the output carries far less or far more than the source (measured in words, CJK characters
///   weighted as words);
/// - **numbers**: every number written in digits in the source appears in the output (a warning only: a target
///   may spell numbers differently).
///
/// A segment that fails any check but the last is a *failed segment*; so is one the model did not translate at
/// all. ``verdict`` fails the whole translation when the failed share exceeds ``Configuration/maximumFailedShare``
/// or the text as a whole does not read as the target language; otherwise every finding is a warning.
public struct TranslationCheck: Sendable {
    /// Thresholds, with defaults.
    public struct Configuration: Sendable, Hashable {
        /// Largest share of failed segments a translation may have and still succeed (with warnings).
        public var maximumFailedShare: Double
        /// Output/source length ratio outside which a segment (of at least four source words) fails.
        public var lengthRatio: ClosedRange<Double>

        /// The defaults: a third of the segments may fail; a segment may be a quarter to four times its source.
        public init(maximumFailedShare: Double = 1.0 / 3.0, lengthRatio: ClosedRange<Double> = 0.25...4.0) {
            self.maximumFailedShare = maximumFailedShare
            self.lengthRatio = lengthRatio
        }
    }

    /// What was found wrong with one segment (a failed segment has at least one of the first six).
    public enum Finding: String, Sendable, Hashable, CaseIterable {
        case notTranslated = "could not be translated (source text kept)"
        case wrongLanguage = "are not in the target language"
        case unrecognised = "could not be recognised as the target language"
        case untranslated = "came back untranslated"
        case loop = "repeat themselves or another segment's sentence"
        case commentary = "talk about the translation instead of translating"
        case length = "are far shorter or longer than their source"
        case numbers = "lost or changed a number"

        /// Whether the finding fails its segment.
        var fails: Bool { self != .numbers }
    }

    /// The outcome of the checks.
    public struct Verdict: Sendable, Hashable {
        /// Segments checked.
        public var total: Int
        /// Segments with at least one failing finding.
        public var failed: Int
        /// How many segments have each finding.
        public var counts: [Finding: Int]
        /// Languages detected in segments that are not in the target, with their counts.
        public var otherLanguages: [String: Int]
        /// The language the whole output reads as, when it can be told.
        public var detectedLanguage: String?
        /// Whether the translation passes (it may still carry warnings).
        public var passes: Bool
        /// One line per finding, for the user (`3 of 7 segments are not in the target language (detected: en ×3)`).
        public var warnings: [String]
    }

    public let configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Checks `output` (one text per source segment, nil where the model gave none) against `source`.
    public func verdict(source: [NoteSegment], output: [String?], sourceLanguage: String?, target: String) -> Verdict {
        var counts: [Finding: Int] = [:]
        var otherLanguages: [String: Int] = [:]
        var failed = 0
        // The same output for several different sources: a loop across segments.
        var sourcesByOutput: [String: Set<String>] = [:]
        for (segment, text) in zip(source, output) {
            guard let text else { continue }
            let key = Self.comparable(text)
            if key.count >= 8 { sourcesByOutput[key, default: []].insert(Self.comparable(segment.text)) }
        }
        let repeatedOutputs = Set(sourcesByOutput.filter { $0.value.count >= 3 }.keys)
        for (segment, text) in zip(source, output) {
            var findings = Set<Finding>()
            if let text {
                let sourceLanguage = sourceLanguage ?? LanguageDetector.detect(segment.text)
                let detected = LanguageDetector.detect(text)
                if Self.comparable(text) == Self.comparable(segment.text), sourceLanguage != target,
                    detected != target
                {
                    findings.insert(.untranslated)
                } else if let detected, detected != target {
                    findings.insert(.wrongLanguage)
                    otherLanguages[detected, default: 0] += 1
                } else if detected == nil, text.filter(\.isLetter).count >= 12 {
                    findings.insert(.unrecognised)
                }
                if repeatedOutputs.contains(Self.comparable(text)) || Self.loops(text) { findings.insert(.loop) }
                if Self.isCommentary(text, source: segment.text) { findings.insert(.commentary) }
                let sourceUnits = Self.units(segment.text)
                if sourceUnits >= 4, !configuration.lengthRatio.contains(Self.units(text) / sourceUnits) {
                    findings.insert(.length)
                }
                if !Self.numbersKept(from: segment.text, in: text) { findings.insert(.numbers) }
            } else {
                findings.insert(.notTranslated)
            }
            for finding in findings { counts[finding, default: 0] += 1 }
            if findings.contains(where: \.fails) { failed += 1 }
        }
        let total = source.count
        let translated = zip(source, output).map { $1 ?? "" }.joined(separator: " ")
        let detected = LanguageDetector.detect(translated, minimumLetters: 4)
        var warnings: [String] = []
        for finding in Finding.allCases {
            guard let count = counts[finding] else { continue }
            var line = "\(count) of \(total) segments \(finding.rawValue)"
            if finding == .wrongLanguage {
                line = "\(count) of \(total) segments are not in \(target)"
                let breakdown = otherLanguages.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                line += " (detected: " + breakdown.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ") + ")"
            } else if finding == .unrecognised {
                line = "\(count) of \(total) segments could not be recognised as \(target)"
            }
            warnings.append(line)
        }
        let readsAsTarget = detected == nil || detected == target
        if let detected, detected != target {
            warnings.append(
                "the translation reads as \(LanguageCatalog.name(of: detected)), not \(LanguageCatalog.name(of: target))")
        }
        let passes =
            total > 0 && readsAsTarget && Double(failed) <= configuration.maximumFailedShare * Double(total)
        return Verdict(
            total: total, failed: failed, counts: counts, otherLanguages: otherLanguages, detectedLanguage: detected,
            passes: passes, warnings: warnings)
    }

    // MARK: - Checks

    /// Lowercased letters and digits only, for comparing sentences.
    static func comparable(_ text: String) -> String {
        String(text.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    /// Text that loops: few distinct words (spaced scripts) or character trigrams (unspaced ones).
    static func loops(_ text: String) -> Bool {
        let terms = Terms.of(text)
        if terms.count >= 8, Double(Set(terms).count) < 0.35 * Double(terms.count) { return true }
        let letters = Array(comparable(text))
        guard letters.count >= 24 else { return false }
        let trigrams = (0..<(letters.count - 2)).map { String(letters[$0..<($0 + 3)]) }
        return Double(Set(trigrams).count) < 0.3 * Double(trigrams.count)
    }

    /// Words models use when they describe a translation instead of giving one, in the target languages.
    static let commentaryMarkers = [
        "translat", "traduc", "traduz", "tradu", "übersetz", "перев", "翻译", "翻譯", "翻訳", "번역", "แปล", "ترجم",
        "अनुवाद", "dịch",
    ]

    static func isCommentary(_ text: String, source: String) -> Bool {
        let output = text.lowercased()
        let input = source.lowercased()
        return commentaryMarkers.contains { output.contains($0) && !input.contains($0) }
    }

    /// Roughly how many words `text` carries: space-separated words, plus unspaced-script characters (Han, kana,
    /// Thai) counted at 1.6 characters per word.
    static func units(_ text: String) -> Double {
        var words = 0.0
        var unspaced = 0.0
        var inWord = false
        for character in text {
            if Terms.isUnspacedScript(character) {
                unspaced += 1
                inWord = false
            } else if character.isLetter || character.isNumber {
                if !inWord { words += 1 }
                inWord = true
            } else {
                inWord = false
            }
        }
        return words + unspaced / 1.6
    }

    /// Whether every run of digits in `source` appears as a run of digits in `output`.
    static func numbersKept(from source: String, in output: String) -> Bool {
        let wanted = digitRuns(source)
        guard !wanted.isEmpty else { return true }
        var present = digitRuns(output)
        for run in wanted {
            guard let index = present.firstIndex(of: run) else { return false }
            present.remove(at: index)
        }
        return true
    }

    static func digitRuns(_ text: String) -> [String] {
        text.split { !$0.isASCII || !$0.isNumber }.map(String.init)
    }
}
