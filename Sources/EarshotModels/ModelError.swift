/// The one error type thrown by EarshotModels.
///
/// `code` is stable and safe to switch on; `message` says what was wrong and how to fix it.
public struct ModelError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable machine-readable value.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Value: String {
            case notFound
            case notAModel
            case unsupportedModel
            case malformedModel
            case unknownModel
            case checksumMismatch
            case diskFull
            case ioFailure
            case toolFailed
        }

        let value: Value

        /// A file or directory does not exist (or a catalog model is not installed).
        public static let notFound = Code(value: .notFound)
        /// The file is not a whisper.cpp ggml model (for example a CTranslate2 `model.bin` or a GGUF file).
        public static let notAModel = Code(value: .notAModel)
        /// The model is well formed but of a kind Earshot cannot use or convert (architecture, revision, dtype).
        public static let unsupportedModel = Code(value: .unsupportedModel)
        /// The file claims to be a model but its contents are inconsistent or truncated.
        public static let malformedModel = Code(value: .malformedModel)
        /// A name is neither a catalog model, a tier, nor a path to a file.
        public static let unknownModel = Code(value: .unknownModel)
        /// A file's SHA-256 differs from the expected value.
        public static let checksumMismatch = Code(value: .checksumMismatch)
        /// The destination file system has no room for the output.
        public static let diskFull = Code(value: .diskFull)
        /// Reading or writing a file failed for another reason.
        public static let ioFailure = Code(value: .ioFailure)
        /// An external tool (pip, whisper-quantize, python3) failed or is missing.
        public static let toolFailed = Code(value: .toolFailed)

        public var description: String { value.rawValue }
    }

    /// The stable code.
    public let code: Code
    /// A sentence for humans saying what was wrong and how to fix it.
    public let message: String
    /// The error that caused this one, if any (for example a Foundation file error).
    public let underlying: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        if let underlying { return "\(message) (\(underlying))" }
        return message
    }
}
