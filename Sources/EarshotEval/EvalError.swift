/// The one error type thrown by EarshotEval.
///
/// `code` is stable and safe to switch on; `message` says what was wrong and how to fix it.
public struct EvalError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable machine-readable value.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Value: String {
            case unreadableFile
            case malformedRTTM
            case malformedPairs
            case unpairedFiles
            case invalidArgument
        }

        let value: Value

        /// A file could not be read or was not valid UTF-8.
        public static let unreadableFile = Code(value: .unreadableFile)
        /// An RTTM line did not have the `SPEAKER file chan start dur … speaker …` shape.
        public static let malformedRTTM = Code(value: .malformedRTTM)
        /// A benchmark pairs file line was neither `ref<TAB>hyp` nor a `{"ref","hyp"}` JSON object.
        public static let malformedPairs = Code(value: .malformedPairs)
        /// Two directories could not be paired file by file.
        public static let unpairedFiles = Code(value: .unpairedFiles)
        /// An argument was out of range (for example a negative collar).
        public static let invalidArgument = Code(value: .invalidArgument)

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
        if let underlying { return "\(code): \(message) (\(underlying))" }
        return "\(code): \(message)"
    }
}
