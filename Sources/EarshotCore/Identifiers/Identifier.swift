/// Random, URL-safe identifiers for records, files, uploads and requests.
///
/// An identifier is a short prefix naming the kind (`file`, `up`, `req`…) followed by `_` and 20 characters of
/// Crockford base32 (100 bits from the system's CSPRNG). Identifiers only ever contain `[0-9a-z_]`, so they are
/// safe in paths, URLs and file names; ``isValid(_:)`` checks a string received from outside before it is used
/// as a key.
public enum Identifier {
    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    /// A new identifier such as `file_7k2m…`. `prefix` must be 1–8 lowercase ASCII letters.
    public static func make(prefix: String) -> String {
        // Two draws (one getrandom each) give 128 bits; 20 base32 characters use 100 of them.
        var generator = SystemRandomNumberGenerator()
        return make(prefix: prefix, randomBits: (generator.next(), generator.next()))
    }

    /// The identifier for `prefix` made from 128 random bits the caller drew (for callers that draw random
    /// bytes in bulk, such as per-request ids); 50 bits of each word are used.
    public static func make(prefix: String, randomBits: (UInt64, UInt64)) -> String {
        precondition(!prefix.isEmpty && prefix.count <= 8 && prefix.utf8.allSatisfy { $0 >= 0x61 && $0 <= 0x7A })
        var (high, low) = randomBits
        var out = [UInt8]()
        out.reserveCapacity(prefix.utf8.count + 21)
        out.append(contentsOf: prefix.utf8)
        out.append(UInt8(ascii: "_"))
        for index in 0..<20 {
            if index < 10 {
                out.append(alphabet[Int(high & 31)])
                high >>= 5
            } else {
                out.append(alphabet[Int(low & 31)])
                low >>= 5
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// True when `value` has the shape of an identifier made by ``make(prefix:)`` (optionally with that prefix).
    ///
    /// Use it on every id that arrives in a path or body before it reaches storage: a valid id cannot contain
    /// `/`, `.` or any other character that could escape a directory.
    public static func isValid(_ value: String, prefix: String? = nil) -> Bool {
        let bytes = Array(value.utf8)
        guard let underscore = bytes.firstIndex(of: UInt8(ascii: "_")), underscore > 0, underscore <= 8 else {
            return false
        }
        let head = bytes[..<underscore]
        let tail = bytes[(underscore + 1)...]
        guard head.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }), tail.count == 20,
            tail.allSatisfy({ alphabet.contains($0) })
        else { return false }
        if let prefix { return String(decoding: head, as: UTF8.self) == prefix }
        return true
    }
}
