public import Foundation

/// CRC-32 (ISO-HDLC: zlib's, gzip's and PNG's) in pure Swift, for the `x-amz-checksum-crc32` header the uploaders
/// send with each part.
///
/// A transfer checksum, never a digest for security. It is four times cheaper than ``MD5`` here (slicing-by-16:
/// about 1.5 GB/s against 0.4 GB/s on one core), which is most of an upload's client CPU.
///
/// A value type: feed bytes with ``update(_:)`` as often as needed, read ``value`` at any time.
public struct CRC32: Sendable, Equatable {
    /// The checksum of the bytes fed so far (0 for none).
    public var value: UInt32 { state ^ 0xFFFF_FFFF }
    private var state: UInt32 = 0xFFFF_FFFF

    public init() {}

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: some ContiguousBytes) -> UInt32 {
        var crc = CRC32()
        bytes.withUnsafeBytes { crc.update($0) }
        return crc.value
    }

    /// The 4 bytes big-endian in base64: the form of S3's `x-amz-checksum-crc32` header.
    public static func base64(_ value: UInt32) -> String {
        withUnsafeBytes(of: value.bigEndian) { Data($0) }.base64EncodedString()
    }

    /// Adds bytes.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard var p = buffer.baseAddress else { return }
        var n = buffer.count
        var c = state
        Self.tables.withUnsafeBufferPointer { t in
            // Slicing-by-16: table k maps a byte to its contribution k bytes further on, so 16 input bytes are
            // folded with 16 independent lookups. `fold` takes one 32-bit word; `top` is the table of its first
            // byte. (Kept as single lookups per statement: one long expression of them defeats the type checker.)
            func fold(_ word: UInt32, _ top: Int) -> UInt32 {
                var r: UInt32 = t[top &* 256 &+ Int(word & 0xFF)]
                r ^= t[(top &- 1) &* 256 &+ Int((word >> 8) & 0xFF)]
                r ^= t[(top &- 2) &* 256 &+ Int((word >> 16) & 0xFF)]
                r ^= t[(top &- 3) &* 256 &+ Int(word >> 24)]
                return r
            }
            while n >= 16 {
                let a: UInt32 = p.loadUnaligned(as: UInt32.self).littleEndian ^ c
                let b: UInt32 = (p + 4).loadUnaligned(as: UInt32.self).littleEndian
                let d: UInt32 = (p + 8).loadUnaligned(as: UInt32.self).littleEndian
                let e: UInt32 = (p + 12).loadUnaligned(as: UInt32.self).littleEndian
                c = fold(a, 15)
                c ^= fold(b, 11)
                c ^= fold(d, 7)
                c ^= fold(e, 3)
                p += 16
                n -= 16
            }
            while n > 0 {
                c = t[Int((c ^ UInt32(p.load(as: UInt8.self))) & 0xFF)] ^ (c >> 8)
                p += 1
                n -= 1
            }
        }
        state = c
    }

    /// 16 tables of 256 entries: table 0 is the byte-wise table of the reflected polynomial 0xEDB88320.
    private static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 16 << 8)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[i] = c
        }
        for k in 1..<16 {
            for i in 0..<256 {
                let previous: UInt32 = t[(k - 1) * 256 + i]
                t[k * 256 + i] = (previous >> 8) ^ t[Int(previous & 0xFF)]
            }
        }
        return t
    }()
}
