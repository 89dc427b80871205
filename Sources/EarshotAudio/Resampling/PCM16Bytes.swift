extension Int16 {
    /// A `Float` sample as PCM16: scaled by 32768 (the inverse of the decoder's scaling, so a decoded PCM16 file
    /// comes back sample for sample), rounded, clipped to the 16-bit range; NaN is silence.
    public init(pcmSample sample: Float) {
        let scaled = (sample * 32_768).rounded()
        self = scaled.isNaN ? 0 : Int16(Swift.max(-32_768, Swift.min(32_767, scaled)))
    }
}

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
