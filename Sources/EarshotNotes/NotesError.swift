/// The one error type of EarshotNotes: a stable `code`, a human `message`, an optional underlying error.
public struct NotesError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable, extensible code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String {
            case invalidInput, unsupportedLanguage, unavailable, timeout, providerError, invalidResponse
            case invalidConfiguration, lowQuality
        }
        private let kind: Kind
        /// The segments or arguments passed in cannot be processed (empty transcript, negative times…).
        public static let invalidInput = Code(kind: .invalidInput)
        /// The requested target language is not one of ``LanguageCatalog/translationTargets``.
        public static let unsupportedLanguage = Code(kind: .unsupportedLanguage)
        /// No language model is reachable: connection refused, or the managed `llama-server` cannot start.
        public static let unavailable = Code(kind: .unavailable)
        /// The language model did not answer within the configured timeout.
        public static let timeout = Code(kind: .timeout)
        /// The provider answered with an HTTP error (the message carries the status and the provider's words).
        public static let providerError = Code(kind: .providerError)
        /// The provider answered 2xx with something that is not a usable chat completion, or the model's text
        /// failed validation (not JSON, segment numbers outside the transcript…).
        public static let invalidResponse = Code(kind: .invalidResponse)
        /// A `Configuration` value cannot work (a missing binary or model file, a bad URL), or the call needs a
        /// language model and none is configured.
        public static let invalidConfiguration = Code(kind: .invalidConfiguration)
        /// The model answered, but its output failed the quality gate (``TranslationCheck``): the message says what
        /// was wrong and what to configure (a capable model at `llm-base-url`).
        public static let lowQuality = Code(kind: .lowQuality)
        public var description: String { kind.rawValue }
    }

    /// The stable code.
    public var code: Code
    /// What was wrong and how to fix it.
    public var message: String
    /// The error that caused this one, if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String { "notes error (\(code)): \(message)" }
}
