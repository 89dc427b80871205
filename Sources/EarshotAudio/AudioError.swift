/// The one error type of EarshotAudio: decoding, WAV inspection and writing all throw it.
///
/// Switch on ``code`` (an extensible set of well-known values); show ``message`` to a human — it says what was
/// wrong with the input and how to fix it. Failures reported by FFmpeg's libraries keep the C function name and
/// FFmpeg's own error text in ``underlying``. Cancellation is reported as Swift's `CancellationError`.
public struct AudioError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is. New codes may be added; match the ones you handle and treat the rest as
    /// internal errors.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case notFound, empty, unsupportedFormat, corrupted, truncated, tooLong, io, invalidArgument, failed
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file does not exist (or is not a regular file).
        public static let notFound = Code(.notFound)
        /// The file has zero bytes, or a valid container holds no audio samples.
        public static let empty = Code(.empty)
        /// Not an audio file, a container or codec that is not supported, or (WAV inspection) a WAV that is not
        /// integer or float PCM. The message carries a conversion command.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// The data is damaged: nothing decodable was found where audio was expected.
        public static let corrupted = Code(.corrupted)
        /// The file ends before the length its header declares. Samples before that point were delivered.
        public static let truncated = Code(.truncated)
        /// The audio is longer than the caller allowed (for example ``AudioDecoder/decodeAll()``'s cap).
        public static let tooLong = Code(.tooLong)
        /// A file-system error (permission denied, I/O error, no space left).
        public static let io = Code(.io)
        /// An argument is out of range (a raw PCM sample rate of 0, a chunk size of 0): a programming error.
        public static let invalidArgument = Code(.invalidArgument)
        /// Any other failure inside FFmpeg's libraries (out of memory, an internal error).
        public static let failed = Code(.failed)

        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable explanation that says what went wrong and, where possible, how to fix it.
    public let message: String
    /// The error reported by the layer below (an FFmpeg call, a POSIX call), if any.
    public let underlying: (any Error)?

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

/// A failure reported by a C library call: the function, its return code and the library's text for it.
struct LibraryCallError: Error, CustomStringConvertible, Sendable {
    let function: String
    let code: Int32
    let text: String

    var description: String { "\(function) returned \(code): \(text)" }
}
