/// Base64url without padding (RFC 4648 §5), the encoding of JWT segments and signed-URL signatures.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` encoded without `=` padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
            out.append(alphabet[Int(value & 63)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let value = UInt32(input[index]) << 16
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
        case 2:
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
        default: break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of an unpadded base64url string; nil on any character outside the alphabet, on `=` padding,
    /// on an impossible length, or when the unused trailing bits are not zero (so every byte string has exactly
    /// one accepted encoding — a tampered signature cannot hide in the spare bits).
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 != 1 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for char in chars {
            guard let value = sextet(char) else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        guard buffer == 0 else { return nil }  // non-canonical trailing bits
        return out
    }

    private static func sextet(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
