internal import CCrypto

/// Turns a libcrypto return code (1 = success) into a ``CryptoError`` naming `function`.
@inline(__always)
func check(_ result: Int32, _ function: StaticString) throws(CryptoError) {
    guard result == 1 else { throw lastError(function) }
}

/// Turns a libcrypto pointer result (nil = failure) into a ``CryptoError`` naming `function`.
@inline(__always)
func check<T>(_ result: T?, _ function: StaticString) throws(CryptoError) -> T {
    guard let result else { throw lastError(function) }
    return result
}

private func lastError(_ function: StaticString) -> CryptoError {
    let code = ERR_get_error()
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buffer, buffer.count)
    let message = code == 0 ? "no error detail" : String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return CryptoError(function: "\(function)", message: message)
}
