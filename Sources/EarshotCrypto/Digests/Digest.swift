/// A finished message digest (SHA-256, MD5…), with hex and base64 renderings.
public struct Digest: Hashable, Sendable, CustomStringConvertible {
    /// The raw digest bytes.
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Lowercase hexadecimal, as in `sha256sum` output and S3 ETags.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { hex }

    /// Parses lowercase or uppercase hexadecimal; nil on any other character or an odd length.
    public init?(hex: String) {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = Self.nibble(chars[index]), let low = Self.nibble(chars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        bytes = out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Compares in time independent of where the digests differ (for MACs and signatures).
    public func constantTimeEquals(_ other: Digest) -> Bool {
        guard bytes.count == other.bytes.count else { return false }
        var diff: UInt8 = 0
        for i in bytes.indices { diff |= bytes[i] ^ other.bytes[i] }
        return diff == 0
    }
}

/// Comparisons whose duration does not depend on the content (for secrets, MACs and password hashes).
public enum ConstantTime {
    /// True when `a` and `b` hold the same bytes; the time depends only on the lengths.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        Digest(bytes: a).constantTimeEquals(Digest(bytes: b))
    }
}
