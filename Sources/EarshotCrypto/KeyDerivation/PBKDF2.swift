internal import CCrypto

/// PBKDF2 (RFC 8018) with HMAC-SHA-256 over libcrypto's `PKCS5_PBKDF2_HMAC`: stored hashes of client secrets.
public enum PBKDF2 {
    /// Derives `length` bytes from `password` and `salt` with `iterations` rounds of HMAC-SHA-256.
    ///
    /// Runs for a time proportional to `iterations` on the calling thread (about 30 ms for 100,000 rounds on
    /// the dev box); call it off the cooperative pool when that matters.
    ///
    /// - Throws: ``CryptoError`` when libcrypto rejects the parameters (zero iterations, zero length).
    public static func sha256(
        password: [UInt8], salt: [UInt8], iterations: Int, length: Int = 32
    ) throws(CryptoError) -> [UInt8] {
        guard iterations > 0, iterations <= Int(Int32.max), length > 0, length <= 1024 else {
            throw CryptoError(function: "PKCS5_PBKDF2_HMAC", message: "iterations and length must be positive")
        }
        var out = [UInt8](repeating: 0, count: length)
        let result = password.withUnsafeBufferPointer { passwordBuffer in
            salt.withUnsafeBufferPointer { saltBuffer in
                passwordBuffer.withMemoryRebound(to: CChar.self) { passwordChars in
                    PKCS5_PBKDF2_HMAC(
                        passwordChars.baseAddress, Int32(passwordBuffer.count), saltBuffer.baseAddress,
                        Int32(saltBuffer.count), Int32(iterations), EVP_sha256(), Int32(length), &out)
                }
            }
        }
        try check(result, "PKCS5_PBKDF2_HMAC")
        return out
    }
}
