/// An error from libcrypto, naming the C function that failed.
public struct CryptoError: Error, CustomStringConvertible, Sendable {
    /// The libcrypto function that reported the failure.
    public let function: String
    /// OpenSSL's error string for the failure, when it gave one.
    public let message: String

    public var description: String { "libcrypto \(function) failed: \(message)" }
}
