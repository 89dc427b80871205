/// An error from the speech engine: a stable ``code`` for programs, a ``message`` for people.
///
/// Cancellation is not a `SpeechError`: a cancelled transcription throws `CancellationError`.
public struct SpeechError: Error, CustomStringConvertible, Sendable {
    /// A stable, extensible error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case modelNotFound, invalidModel, invalidAudio, invalidOption, voiceActivityFailed, decodeFailed
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The model file does not exist or cannot be read.
        public static let modelNotFound = Code(.modelNotFound)
        /// whisper.cpp refused the model file (not a ggml Whisper model, or truncated).
        public static let invalidModel = Code(.invalidModel)
        /// The samples cannot be transcribed (empty, not finite, unreadable file).
        public static let invalidAudio = Code(.invalidAudio)
        /// An option is out of range or unknown (language code, beam size, …).
        public static let invalidOption = Code(.invalidOption)
        /// The voice-activity detector could not be loaded or failed.
        public static let voiceActivityFailed = Code(.voiceActivityFailed)
        /// whisper.cpp reported a failure while decoding.
        public static let decodeFailed = Code(.decodeFailed)

        public var description: String { value.rawValue }
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// What went wrong and how to fix it.
    public let message: String
    /// The error that caused this one, if any.
    public let underlying: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String { message }
}

/// Turns a whisper.cpp status code (0 = success) into a ``SpeechError`` naming `function`.
@inline(__always)
func check(_ result: Int32, _ function: StaticString) throws(SpeechError) {
    guard result == 0 else { throw SpeechError(.decodeFailed, "whisper.cpp \(function) failed with status \(result)") }
}
