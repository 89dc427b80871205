public import Foundation
internal import CCrypto

/// HMAC (RFC 2104) over libcrypto: signed URLs, webhook signatures, JWT HS256, SigV4.
public enum HMAC {
    /// HMAC of `message` with `key` using `algorithm`.
    public static func authenticationCode(
        _ algorithm: DigestAlgorithm = .sha256, key: some ContiguousBytes, message: some ContiguousBytes
    ) -> Digest {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        key.withUnsafeBytes { keyBuffer in
            message.withUnsafeBytes { messageBuffer in
                // HMAC() returns nil only on allocation failure.
                let result = CCrypto.HMAC(
                    algorithm.evp, keyBuffer.baseAddress, Int32(keyBuffer.count),
                    messageBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBuffer.count,
                    &out, &length)
                precondition(result != nil, "HMAC allocation failed")
            }
        }
        return Digest(bytes: Array(out.prefix(Int(length))))
    }
}
