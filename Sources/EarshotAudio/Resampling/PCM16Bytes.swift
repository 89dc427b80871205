/// 16-bit samples ↔ their little-endian bytes, the form live audio and raw PCM travel in.
extension Array where Element == Int16 {
    /// The samples of little-endian PCM16 bytes (an odd trailing byte is dropped).
    public init(littleEndianPCM bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { raw in
            (0..<raw.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
    }

    /// The samples as little-endian bytes.
    public var littleEndianBytes: [UInt8] {
        map(\.littleEndian).withUnsafeBytes { [UInt8]($0) }
    }
}
