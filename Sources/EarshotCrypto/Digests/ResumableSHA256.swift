public import Foundation
internal import CCrypto

/// A SHA-256 whose intermediate state can be saved as bytes and resumed later, in another process.
///
/// A multipart upload feeds each part as it arrives and keeps ``state`` with the upload, so completing the
/// upload only finishes the digest instead of reading the whole file again, even across a server restart.
/// Same result as ``DigestAlgorithm/sha256`` over the same bytes. A plain value: copy it to branch.
public struct ResumableSHA256: Sendable {
    private var context = SHA256_CTX()

    /// An empty digest.
    public init() {
        _ = earshot_sha256_init(&context)
    }

    /// Resumes a digest from ``state``.
    ///
    /// - Throws: ``CryptoError`` when `state` is not a saved SHA-256 state (wrong length or pending bytes).
    public init(state: [UInt8]) throws(CryptoError) {
        let restored = state.withUnsafeBufferPointer { earshot_sha256_restore(&context, $0.baseAddress, $0.count) }
        guard restored == 1 else {
            throw CryptoError(
                function: "earshot_sha256_restore", message: "\(state.count) bytes are not a saved SHA-256 state")
        }
    }

    /// Bytes fed so far (including those of the resumed state).
    public var byteCount: Int64 {
        Int64((UInt64(context.Nh) << 32 | UInt64(context.Nl)) >> 3)
    }

    /// The state to save: 40 bytes plus the bytes of a trailing partial 64-byte block (none when ``byteCount``
    /// is a multiple of 64, as with 5 MiB parts).
    public var state: [UInt8] {
        var copy = context
        return [UInt8](unsafeUninitializedCapacity: Int(EARSHOT_SHA256_STATE_MAX)) { buffer, count in
            count = earshot_sha256_save(&copy, buffer.baseAddress)
        }
    }

    /// Adds bytes.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard buffer.count > 0 else { return }
        _ = earshot_sha256_update(&context, buffer.baseAddress, buffer.count)
    }

    /// Adds bytes.
    public mutating func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest of every byte fed so far; the value itself is unchanged and can be fed further.
    public func finalize() -> Digest {
        var copy = context
        var out = [UInt8](repeating: 0, count: 32)
        _ = earshot_sha256_final(&copy, &out)
        return Digest(bytes: out)
    }
}
