internal import CCrypto
public import Foundation
import Synchronization

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

extension HMAC {
    /// A key prepared once for many messages: libcrypto's HMAC context with the key's pads already hashed, copied
    /// for each message. A token's HS256 costs 0.85 µs this way against 1.7 µs for
    /// ``HMAC/authenticationCode(_:key:message:)`` (which looks up the MAC and sets the key every time).
    public final class PreparedKey: Sendable {
        // SAFETY: the context is only read (EVP_MAC_CTX_dup) after init, under `lock`, and freed in deinit.
        private nonisolated(unsafe) let context: OpaquePointer
        private let lock = Mutex(())

        public init(_ algorithm: DigestAlgorithm = .sha256, secret: some ContiguousBytes) {
            // Allocation failures (the only ways these fail with a built-in digest) are not recoverable.
            guard let mac = EVP_MAC_fetch(nil, "HMAC", nil), let context = EVP_MAC_CTX_new(mac) else {
                preconditionFailure("cannot create an HMAC context")
            }
            EVP_MAC_free(mac)
            let name = String(cString: EVP_MD_get0_name(algorithm.evp))
            let initialised = "digest".withCString { key in
                name.withCString { value in
                    var parameters = [
                        OSSL_PARAM_construct_utf8_string(key, UnsafeMutablePointer(mutating: value), 0),
                        OSSL_PARAM_construct_end(),
                    ]
                    return secret.withUnsafeBytes { bytes in
                        EVP_MAC_init(
                            context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &parameters)
                    }
                }
            }
            precondition(initialised == 1, "cannot initialise an HMAC context")
            self.context = context
        }

        deinit {
            EVP_MAC_CTX_free(context)
        }

        /// The HMAC of `message`.
        public func authenticationCode(_ message: some ContiguousBytes) -> Digest {
            guard let copy = lock.withLock({ _ in EVP_MAC_CTX_dup(context) }) else {
                preconditionFailure("HMAC allocation failed")
            }
            defer { EVP_MAC_CTX_free(copy) }
            var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length = 0
            let finished = message.withUnsafeBytes { buffer in
                EVP_MAC_update(copy, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count) == 1
                    && EVP_MAC_final(copy, &out, &length, out.count) == 1
            }
            precondition(finished, "HMAC failed")
            return Digest(bytes: Array(out.prefix(length)))
        }
    }
}
