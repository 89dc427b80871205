/// The one error type of EarshotDiarization: a stable `code`, a human `message`, an optional underlying error.
public struct DiarizationError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable, extensible code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String {
            case weightsMissing, weightsInvalid, invalidInput, invalidConfiguration, cancelled, speechDetectionFailed
        }
        private let kind: Kind
        /// The weights file does not exist (run `scripts/setup-diarization`).
        public static let weightsMissing = Code(kind: .weightsMissing)
        /// The weights file exists but is not a valid ESWT file for this model.
        public static let weightsInvalid = Code(kind: .weightsInvalid)
        /// The audio or segments passed in cannot be processed.
        public static let invalidInput = Code(kind: .invalidInput)
        /// A `Configuration` value is out of range.
        public static let invalidConfiguration = Code(kind: .invalidConfiguration)
        /// The surrounding task was cancelled (checked between batches of 32 partials, ≈ 40 s of audio).
        public static let cancelled = Code(kind: .cancelled)
        /// The Silero speech detector could not run (its model file is missing or unreadable).
        public static let speechDetectionFailed = Code(kind: .speechDetectionFailed)
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

    public var description: String { "diarization error (\(code)): \(message)" }
}
