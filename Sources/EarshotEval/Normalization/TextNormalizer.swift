/// Turns a transcript into the token sequence that is scored.
///
/// Configure it with a ``Configuration`` (``Configuration/defaults(for:)`` per language, ``Configuration/none``
/// for no-op scoring that only splits on whitespace). A value type: safe to share between tasks.
public struct TextNormalizer: Sendable {
    /// The language whose rules apply (numerals, contractions, spelling, default fillers).
    public enum Language: String, Sendable, Hashable, Codable, CaseIterable {
        /// English.
        case english = "en"
        /// Chinese (Mandarin, simplified or traditional script).
        case chinese = "zh"
    }

    /// Which rules run and with what data.
    public struct Configuration: Sendable, Hashable, Codable {
        /// The language of language-specific rules.
        public var language: Language
        /// The enabled rules; they always run in ``NormalizationRule/allCases`` order.
        public var rules: Set<NormalizationRule>
        /// Words and phrases removed by ``NormalizationRule/removeFillers``; extend it freely.
        public var fillers: Set<String>

        /// Creates a configuration.
        public init(language: Language, rules: Set<NormalizationRule>, fillers: Set<String>) {
            self.language = language
            self.rules = rules
            self.fillers = fillers
        }

        /// Every rule that applies to `language`, with that language's filler list.
        public static func defaults(for language: Language) -> Configuration {
            switch language {
            case .english:
                Configuration(language: .english, rules: Set(NormalizationRule.allCases), fillers: englishFillers)
            case .chinese:
                Configuration(
                    language: .chinese,
                    rules: Set(NormalizationRule.allCases).subtracting([.expandContractions, .americanSpelling]),
                    fillers: chineseFillers.union(englishFillers))
            }
        }

        /// No rule at all: the text is only split on whitespace (what jiwer's default transform does).
        public static let none = Configuration(language: .english, rules: [], fillers: [])

        /// English hesitation sounds removed by default.
        public static let englishFillers: Set<String> = [
            "um", "umm", "uh", "uhh", "uhm", "er", "erm", "ah", "hmm", "hm", "mm", "mmm",
        ]
        /// Chinese hesitation sounds and discourse fillers removed by default.
        public static let chineseFillers: Set<String> = ["嗯", "啊", "呃", "额", "那个"]
    }

    /// The configuration in use.
    public let configuration: Configuration

    /// Creates a normaliser.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The tokens to score: `text` after every enabled rule, split on whitespace.
    public func tokens(_ text: String) -> [String] {
        var text = text
        for rule in NormalizationRule.allCases where configuration.rules.contains(rule) {
            text = apply(rule, to: text)
        }
        return text.split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// The normalised text: ``tokens(_:)`` joined by single spaces.
    public func normalize(_ text: String) -> String {
        tokens(text).joined(separator: " ")
    }

    /// Runs one rule on `text`, whether or not it is enabled in the configuration.
    public func apply(_ rule: NormalizationRule, to text: String) -> String {
        switch rule {
        case .fullWidthToHalfWidth: return CharacterRules.halfWidth(text)
        case .lowercase: return text.lowercased()
        case .removeThousandsSeparators: return CharacterRules.removingThousandsSeparators(text)
        case .expandContractions:
            return configuration.language == .english ? EnglishContractions.expand(text) : text
        case .punctuationToSpace: return CharacterRules.punctuationToSpace(text)
        case .numerals:
            switch configuration.language {
            case .english: return EnglishNumbers.normalize(text)
            case .chinese: return ChineseNumbers.normalize(text)
            }
        case .americanSpelling:
            guard configuration.language == .english else { return text }
            return text.split(whereSeparator: \.isWhitespace)
                .map { AmericanSpellings.table[$0].map(String.init) ?? String($0) }
                .joined(separator: " ")
        case .removeFillers: return CharacterRules.removingFillers(text, fillers: configuration.fillers)
        case .splitCJKCharacters: return CharacterRules.splittingCJK(text)
        }
    }
}
