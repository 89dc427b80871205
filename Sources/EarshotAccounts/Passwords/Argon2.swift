internal import CArgon2

/// The one wrapper over libargon2 (the reference implementation, from Debian): raw Argon2id tags for the RFC 9106
/// vectors, and PHC-format hashes (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`) for stored passwords.
///
/// Every call is synchronous and CPU- and memory-bound (``Argon2Parameters/memoryKiB`` per call); run it off the
/// cooperative pool (``PasswordHasher`` does).
enum Argon2 {
    /// The raw tag of Argon2id over `password` and `salt`, with the optional secret key and associated data of
    /// RFC 9106 §3.1.
    static func tag(
        password: [UInt8], salt: [UInt8], secret: [UInt8] = [], associatedData: [UInt8] = [],
        parameters: Argon2Parameters, length: Int = 32
    ) throws(AccountError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var password = password
        var salt = salt
        var secret = secret
        var associatedData = associatedData
        let result = out.withUnsafeMutableBufferPointer { out in
            password.withUnsafeMutableBufferPointer { password in
                salt.withUnsafeMutableBufferPointer { salt in
                    secret.withUnsafeMutableBufferPointer { secret in
                        associatedData.withUnsafeMutableBufferPointer { data in
                            var context = argon2_context(
                                out: out.baseAddress, outlen: UInt32(out.count), pwd: password.baseAddress,
                                pwdlen: UInt32(password.count), salt: salt.baseAddress, saltlen: UInt32(salt.count),
                                secret: secret.baseAddress, secretlen: UInt32(secret.count), ad: data.baseAddress,
                                adlen: UInt32(data.count), t_cost: parameters.iterations,
                                m_cost: parameters.memoryKiB, lanes: parameters.parallelism,
                                threads: parameters.parallelism, version: UInt32(ARGON2_VERSION_13.rawValue),
                                allocate_cbk: nil, free_cbk: nil, flags: 0)
                            return argon2_ctx(&context, Argon2_id)
                        }
                    }
                }
            }
        }
        try check(result, "argon2_ctx")
        return out
    }

    /// A PHC-format Argon2id hash of `password` with `salt` (32-byte tag).
    static func encoded(
        password: [UInt8], salt: [UInt8], parameters: Argon2Parameters
    ) throws(AccountError) -> String {
        let length = argon2_encodedlen(
            parameters.iterations, parameters.memoryKiB, parameters.parallelism, UInt32(salt.count), 32, Argon2_id)
        var buffer = [CChar](repeating: 0, count: length)
        let result = argon2id_hash_encoded(
            parameters.iterations, parameters.memoryKiB, parameters.parallelism, password, password.count, salt,
            salt.count, 32, &buffer, buffer.count)
        try check(result, "argon2id_hash_encoded")
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True when `password` matches the PHC-format Argon2id `encoded` hash (libargon2 compares in constant time);
    /// false for a mismatch or a string that is not an Argon2id hash.
    static func verify(password: [UInt8], encoded: String) -> Bool {
        argon2id_verify(encoded, password, password.count) == ARGON2_OK.rawValue
    }

    /// Turns a libargon2 result into an ``AccountError`` naming `function` and libargon2's message.
    private static func check(_ result: Int32, _ function: StaticString) throws(AccountError) {
        guard result != ARGON2_OK.rawValue else { return }
        let message = argon2_error_message(result).map { String(cString: $0) } ?? "error \(result)"
        throw AccountError(.internal, "libargon2 \(function) failed: \(message)")
    }
}
