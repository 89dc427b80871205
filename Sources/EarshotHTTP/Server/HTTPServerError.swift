internal import CMicroHTTPD

/// A failure to start or run the server (as opposed to ``HTTPError``, which is an answer to one request).
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Compare with the static members; more may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidConfiguration, startFailed, alreadyStarted, libraryCall
        }
        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// A configuration value is unusable (the message says which and why).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// libmicrohttpd could not start (address in use, permission denied, out of descriptors…).
        public static let startFailed = Code(.startFailed)
        /// ``HTTPServer/run()`` was called more than once.
        public static let alreadyStarted = Code(.alreadyStarted)
        /// A libmicrohttpd call made while serving failed (reported in the log for the request it concerned).
        public static let libraryCall = Code(.libraryCall)

        public var description: String { base.rawValue }
    }

    public let code: Code
    /// What went wrong and how to fix it.
    public let message: String
    /// The libmicrohttpd function that failed, when one did.
    public let function: String?

    init(_ code: Code, _ message: String, function: String? = nil) {
        self.code = code
        self.message = message
        self.function = function
    }

    public var description: String {
        if let function { return "\(code): \(function) failed: \(message)" }
        return "\(code): \(message)"
    }
}

/// Turns a libmicrohttpd pointer result (nil = failure) into an ``HTTPServerError`` naming `function`.
func check(_ result: OpaquePointer?, _ function: StaticString, _ message: @autoclosure () -> String)
    throws(HTTPServerError) -> OpaquePointer
{
    guard let result else { throw HTTPServerError(.startFailed, message(), function: "\(function)") }
    return result
}

/// Turns an `MHD_Result` into an ``HTTPServerError`` naming `function`.
func check(_ result: MHD_Result, _ function: StaticString, _ message: @autoclosure () -> String) throws(HTTPServerError)
{
    guard result == .YES else { throw HTTPServerError(.libraryCall, message(), function: "\(function)") }
}
