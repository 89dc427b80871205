public import Foundation
internal import CCrypto

/// An incremental message digest over libcrypto's EVP interface.
///
/// Feed bytes with ``update(_:)`` as they arrive (a streamed upload, a file read in chunks) and call
/// ``finalize()`` once. A hasher is a value owned by one task at a time; it is `Sendable` so it can move
/// between tasks, but must not be used from two at once.
public struct StreamingHasher: ~Copyable, @unchecked Sendable {
    // SAFETY: the EVP context is owned exclusively by this non-copyable value and only touched through
    // `mutating`/`consuming` methods, so no two threads can use it at once.
    private let context: OpaquePointer
    /// The algorithm in use.
    public let algorithm: DigestAlgorithm

    /// Starts a digest. Throws only if libcrypto cannot allocate or initialise the context.
    public init(_ algorithm: DigestAlgorithm) throws(CryptoError) {
        let context = try check(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
        guard EVP_DigestInit_ex(context, algorithm.evp, nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw CryptoError(function: "EVP_DigestInit_ex", message: "cannot initialise \(algorithm.rawValue)")
        }
        self.context = context
        self.algorithm = algorithm
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Adds bytes to the digest.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard buffer.count > 0 else { return }
        // EVP_DigestUpdate cannot fail for the software digests used here once initialised.
        _ = EVP_DigestUpdate(context, buffer.baseAddress, buffer.count)
    }

    /// Adds bytes to the digest.
    public mutating func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Finishes the digest.
    public consuming func finalize() -> Digest {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &out, &length)
        return Digest(bytes: Array(out.prefix(Int(length))))
    }
}

/// The digest algorithms Earshot uses.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    /// SHA-256: content addressing, integrity checks, SigV4.
    case sha256
    /// MD5: S3-style part ETags only (not for security).
    case md5
    /// SHA-1: the WebSocket opening handshake's `Sec-WebSocket-Accept` only (RFC 6455 fixes it; not for security).
    case sha1

    var evp: OpaquePointer? {
        switch self {
        case .sha256: EVP_sha256()
        case .md5: EVP_md5()
        case .sha1: EVP_sha1()
        }
    }

    /// One-shot digest of `bytes`.
    public func hash(_ bytes: some ContiguousBytes) -> Digest {
        // Allocation failure of a context is not recoverable in any caller; treat it as a crash.
        var hasher = try! StreamingHasher(self)
        hasher.update(bytes)
        return hasher.finalize()
    }
}
