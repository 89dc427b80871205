internal import CZlib
public import Foundation

/// CRC-32 (ISO-HDLC, the polynomial of zlib, gzip and PNG) over zlib's `crc32`, as S3's `x-amz-checksum-crc32`
/// uses it: a transfer checksum that catches damage in transit, never a digest for security.
///
/// A value: feed bytes with ``update(_:)`` as they arrive, read ``value`` at any time.
public struct CRC32: Sendable, Equatable {
    /// The checksum of the bytes fed so far (0 for none).
    public private(set) var value: UInt32 = 0

    public init() {}

    /// Adds bytes.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard var base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var remaining = buffer.count
        var crc = UInt(value)
        // zlib's length is a 32-bit uInt: feed at most 1 GiB per call.
        while remaining > 0 {
            let count = min(remaining, 1 << 30)
            crc = CZlib.crc32(crc, base, UInt32(count))
            base += count
            remaining -= count
        }
        value = UInt32(truncatingIfNeeded: crc)
    }

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

    /// The checksum in an `x-amz-checksum-crc32` header value, or nil when it is not base64 of 4 bytes.
    public static func parse(base64 text: some StringProtocol) -> UInt32? {
        guard let bytes = Data(base64Encoded: String(text)), bytes.count == 4 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
