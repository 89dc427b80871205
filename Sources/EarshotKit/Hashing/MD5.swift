/// MD5 (RFC 1321) in pure Swift, for checking part ETags without a C crypto library.
///
/// The platform answers each part `PUT` with `ETag: "<md5 hex>"`; the uploader compares it with this digest of
/// the bytes it sent. MD5 is used here as a transfer checksum only, never for security.
///
/// A value type: feed bytes with ``update(_:)`` as often as needed, then call ``finalize()``.
public struct MD5: Sendable {
    private var a: UInt32 = 0x6745_2301
    private var b: UInt32 = 0xefcd_ab89
    private var c: UInt32 = 0x98ba_dcfe
    private var d: UInt32 = 0x1032_5476
    /// Bytes of an incomplete block waiting for more input (fewer than 64).
    private var pending: [UInt8] = []
    /// Total message length in bytes.
    private var length: UInt64 = 0

    public init() {
        pending.reserveCapacity(64)
    }

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var md5 = MD5()
        md5.update(Array(bytes))
        return md5.finalize()
    }

    /// Lowercase hex of the digest of `bytes` (the form used in ETags).
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        hexString(hash(bytes))
    }

    /// Adds bytes to the digest.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds bytes to the digest.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        length &+= UInt64(buffer.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, buffer.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
            offset = take
            if pending.count == 64 {
                pending.withUnsafeBytes { compress($0.baseAddress!) }
                pending.removeAll(keepingCapacity: true)
            }
        }
        while buffer.count - offset >= 64 {
            compress(base + offset)
            offset += 64
        }
        if offset < buffer.count {
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base + offset, count: buffer.count - offset))
        }
    }

    /// Finishes the digest (16 bytes).
    public consuming func finalize() -> [UInt8] {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        let padding = (pending.count + 1) % 64 <= 56 ? 56 - (pending.count + 1) % 64 : 120 - (pending.count + 1) % 64
        tail += [UInt8](repeating: 0, count: padding)
        for shift in stride(from: 0, to: 64, by: 8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        let saved = length
        update(tail)
        length = saved
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for word in [a, b, c, d] {
            for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return out
    }

    /// Lowercase hexadecimal of `bytes`.
    public static func hexString(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Block function

    @inline(__always)
    private static func step(
        _ f: UInt32, _ a: UInt32, _ b: UInt32, _ x: UInt32, _ t: UInt32, _ s: UInt32
    ) -> UInt32 {
        let sum = a &+ f &+ x &+ t
        return b &+ ((sum << s) | (sum >> (32 &- s)))
    }

    private mutating func compress(_ block: UnsafeRawPointer) {
        var x = (
            UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
            UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0)
        )
        withUnsafeMutableBytes(of: &x) { words in
            words.copyMemory(from: UnsafeRawBufferPointer(start: block, count: 64))
        }
        withUnsafeBytes(of: &x) { raw in
            let w = raw.bindMemory(to: UInt32.self)
            @inline(__always) func m(_ i: Int) -> UInt32 { UInt32(littleEndian: w[i]) }
            var a = self.a, b = self.b, c = self.c, d = self.d
            // Round 1: F(b,c,d) = (b & c) | (~b & d)
            var i = 0
            while i < 16 {
                a = Self.step((b & c) | (~b & d), a, b, m(i), Self.t[i], Self.s[i])
                d = Self.step((a & b) | (~a & c), d, a, m(i + 1), Self.t[i + 1], Self.s[i + 1])
                c = Self.step((d & a) | (~d & b), c, d, m(i + 2), Self.t[i + 2], Self.s[i + 2])
                b = Self.step((c & d) | (~c & a), b, c, m(i + 3), Self.t[i + 3], Self.s[i + 3])
                i += 4
            }
            // Round 2: G(b,c,d) = (b & d) | (c & ~d); message index (5i+1) mod 16
            while i < 32 {
                a = Self.step((b & d) | (c & ~d), a, b, m((5 &* i &+ 1) & 15), Self.t[i], Self.s[i])
                d = Self.step((a & c) | (b & ~c), d, a, m((5 &* (i + 1) &+ 1) & 15), Self.t[i + 1], Self.s[i + 1])
                c = Self.step((d & b) | (a & ~b), c, d, m((5 &* (i + 2) &+ 1) & 15), Self.t[i + 2], Self.s[i + 2])
                b = Self.step((c & a) | (d & ~a), b, c, m((5 &* (i + 3) &+ 1) & 15), Self.t[i + 3], Self.s[i + 3])
                i += 4
            }
            // Round 3: H(b,c,d) = b ^ c ^ d; message index (3i+5) mod 16
            while i < 48 {
                a = Self.step(b ^ c ^ d, a, b, m((3 &* i &+ 5) & 15), Self.t[i], Self.s[i])
                d = Self.step(a ^ b ^ c, d, a, m((3 &* (i + 1) &+ 5) & 15), Self.t[i + 1], Self.s[i + 1])
                c = Self.step(d ^ a ^ b, c, d, m((3 &* (i + 2) &+ 5) & 15), Self.t[i + 2], Self.s[i + 2])
                b = Self.step(c ^ d ^ a, b, c, m((3 &* (i + 3) &+ 5) & 15), Self.t[i + 3], Self.s[i + 3])
                i += 4
            }
            // Round 4: I(b,c,d) = c ^ (b | ~d); message index 7i mod 16
            while i < 64 {
                a = Self.step(c ^ (b | ~d), a, b, m((7 &* i) & 15), Self.t[i], Self.s[i])
                d = Self.step(b ^ (a | ~c), d, a, m((7 &* (i + 1)) & 15), Self.t[i + 1], Self.s[i + 1])
                c = Self.step(a ^ (d | ~b), c, d, m((7 &* (i + 2)) & 15), Self.t[i + 2], Self.s[i + 2])
                b = Self.step(d ^ (c | ~a), b, c, m((7 &* (i + 3)) & 15), Self.t[i + 3], Self.s[i + 3])
                i += 4
            }
            self.a &+= a
            self.b &+= b
            self.c &+= c
            self.d &+= d
        }
    }

    /// Per-step left rotations (RFC 1321 §3.4).
    private static let s: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// T[i] = floor(2^32 × |sin(i + 1)|) (RFC 1321 §3.4).
    private static let t: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]
}
