/// The message padding SHA-1 and SHA-256 share (FIPS 180-4 section 5.1.1): a 1 bit, zeros up to 56 bytes modulo 64,
/// then the message's length in bits as a big-endian 64-bit number.
enum MessagePadding {
    static func padded(_ message: [UInt8]) -> [UInt8] {
        var data = message
        let bits = UInt64(message.count) &* 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        return data
    }
}
