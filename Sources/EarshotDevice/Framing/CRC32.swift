/// CRC-32 as in IEEE 802.3, zlib and PNG (reflected polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF):
/// the check value of every frame. `CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926`.
public struct CRC32: Sendable {
    /// The running value; ``value`` is the checksum of everything fed so far.
    private var state: UInt32 = 0xFFFF_FFFF

    /// An empty checksum.
    public init() {}

    /// Adds `bytes` to the checksum.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        var crc = state
        for byte in bytes {
            crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        state = crc
    }

    /// The checksum of the bytes fed so far.
    public var value: UInt32 { state ^ 0xFFFF_FFFF }

    /// The checksum of `bytes`.
    public static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }
}

/// CRC-8 with polynomial 0x07 (CRC-8/SMBUS, as in ATM's header error control): the check byte of every frame header,
/// so a corrupted length is caught before the reader waits for bytes that will never come.
/// `CRC8.checksum(Array("123456789".utf8)) == 0xF4`.
public enum CRC8 {
    /// The checksum of `bytes`.
    public static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt8 where Bytes.Element == UInt8 {
        var crc: UInt8 = 0
        for byte in bytes { crc = table[Int(crc ^ byte)] }
        return crc
    }

    private static let table: [UInt8] = (0..<256).map { index in
        var value = UInt8(index)
        for _ in 0..<8 { value = value & 0x80 != 0 ? (value << 1) ^ 0x07 : value << 1 }
        return value
    }
}
