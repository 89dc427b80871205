internal import CCrypto

/// Cryptographically secure random bytes from libcrypto's DRBG (keys, secrets, nonces).
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        try check(RAND_bytes(&out, Int32(count)), "RAND_bytes")
        return out
    }
}
