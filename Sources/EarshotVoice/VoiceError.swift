/// The one error type of EarshotVoice: a stable `code`, a human `message`, an optional underlying error.
public struct VoiceError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable, extensible code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String {
            case invalidInput, unsupportedLanguage, unsupportedVoice, unavailable, timeout, providerError
            case invalidResponse, failed
        }
        private let kind: Kind
        /// The request cannot be spoken: empty text, a speed out of range.
        public static let invalidInput = Code(kind: .invalidInput)
        /// The engine does not speak the requested language (the message lists what it speaks).
        public static let unsupportedLanguage = Code(kind: .unsupportedLanguage)
        /// The voice is not one the synthesizer offers (the message lists them).
        public static let unsupportedVoice = Code(kind: .unsupportedVoice)
        /// The engine cannot run: espeak-ng is not installed, or the provider cannot be reached.
        public static let unavailable = Code(kind: .unavailable)
        /// The engine or provider did not finish within the configured time limit.
        public static let timeout = Code(kind: .timeout)
        /// The provider answered with an HTTP error (the message carries the status and the provider's words).
        public static let providerError = Code(kind: .providerError)
        /// The engine or provider answered with something that is not audio Earshot can read.
        public static let invalidResponse = Code(kind: .invalidResponse)
        /// The engine failed (a non-zero exit, a crash); the message carries its stderr.
        public static let failed = Code(kind: .failed)
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

    public var description: String { "voice error (\(code)): \(message)" }
}
