/// The languages notes know by name: the 14 translation targets of the seed and their names for prompts.
public enum LanguageCatalog {
    /// ISO 639-1 codes a transcript can be translated into, in the seed's order.
    public static let translationTargets = [
        "zh", "en", "ja", "ko", "fr", "de", "es", "ru", "it", "pt", "th", "vi", "ar", "hi",
    ]

    /// The English name of a language (for prompts and messages), or the code itself when unknown.
    public static func name(of code: String) -> String {
        names[code] ?? code
    }

    static let names = [
        "zh": "Chinese (Simplified)", "en": "English", "ja": "Japanese", "ko": "Korean", "fr": "French",
        "de": "German", "es": "Spanish", "ru": "Russian", "it": "Italian", "pt": "Portuguese", "th": "Thai",
        "vi": "Vietnamese", "ar": "Arabic", "hi": "Hindi",
    ]

    /// `code` lowercased with any region dropped (`zh-CN` → `zh`, `PT_br` → `pt`).
    static func normalize(_ code: String) -> String {
        String(code.lowercased().prefix { $0 != "-" && $0 != "_" })
    }
}
