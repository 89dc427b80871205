/// One normalisation step. ``TextNormalizer`` applies the enabled rules in the order of ``allCases``.
///
/// Each rule is a pure `String → String` function and can be run alone with ``TextNormalizer/apply(_:to:)``.
public enum NormalizationRule: String, Sendable, Hashable, Codable, CaseIterable {
    /// Full-width ASCII forms (U+FF01–U+FF5E) become their half-width ASCII letters, digits and signs, and the
    /// ideographic space U+3000 becomes a space: `ＡＢＣ１２３` → `ABC123`.
    case fullWidthToHalfWidth
    /// Lowercases every letter: `Hello World` → `hello world`.
    case lowercase
    /// Removes thousands separators inside numbers: `1,234,567` → `1234567` (a comma followed by exactly three
    /// digits and preceded by a digit).
    case removeThousandsSeparators
    /// English only: expands contractions (`don't` → `do not`, `we're` → `we are`, `won't` → `will not`,
    /// `it's` → `it is`); possessives such as `john's` are left alone.
    case expandContractions
    /// Replaces punctuation and symbols with a space (never deletes them, so `well,done` → `well done`). Kept:
    /// an apostrophe between letters (`john's`), a point between digits (`3.5`) and `%` after a digit (`5%`).
    case punctuationToSpace
    /// Writes numbers as digits. English: `twenty three` → `23`, `one hundred and five` → `105`,
    /// `twenty first` → `21st`, `three point five` → `3.5`, `five percent`/`5%` → `5 percent`, `nineteen
    /// ninety nine` → `1999`, `nine oh five` → `9 05`; `nine thirty` stays two numbers, `9 30`, like `9:30` does
    /// after punctuation. Chinese: `一百二十三` → `123`, `两` → `2`, `二零二四年` → `2024年`, `百分之五` → `5%`,
    /// `三点五` → `3.5`; a single numeral character is converted only before a measure word (`一个` → `1个`,
    /// while `一样` stays).
    case numerals
    /// English only: British spellings become American ones (`colour` → `color`), from Whisper's table.
    case americanSpelling
    /// Removes fillers from ``TextNormalizer/Configuration/fillers``: ASCII fillers as whole words (`um`, `uh`),
    /// fillers written in Chinese characters wherever they occur (`嗯`, `那个`).
    case removeFillers
    /// Puts every CJK character (Han, kana, Hangul) in a token of its own while runs of ASCII letters and
    /// digits stay whole, like sclite's NOASCII mode: `我有3个iPhone` → `我 有 3 个 iPhone`.
    case splitCJKCharacters
}
