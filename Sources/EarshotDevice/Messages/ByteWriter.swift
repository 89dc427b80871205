/// Appends little-endian fields to a payload: fixed-width integers, length-prefixed UTF-8 and byte strings.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { append(value) }
    mutating func u32(_ value: UInt32) { append(value) }
    mutating func u64(_ value: UInt64) { append(value) }
    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// A string of at most 255 UTF-8 bytes (serials, names, codes), prefixed by its length as one byte.
    mutating func shortString(_ value: String) {
        let utf8 = Array(value.utf8.prefix(255))
        bytes.append(UInt8(utf8.count))
        bytes += utf8
    }

    /// A string of at most 65,535 UTF-8 bytes (URLs, messages), prefixed by its length as two bytes.
    mutating func longString(_ value: String) {
        let utf8 = Array(value.utf8.prefix(Int(UInt16.max)))
        u16(UInt16(utf8.count))
        bytes += utf8
    }

    /// Exactly `count` bytes (a digest), zero-padded or cut to that size.
    mutating func fixed(_ value: [UInt8], count: Int) {
        bytes += value.prefix(count)
        if value.count < count { bytes += [UInt8](repeating: 0, count: count - value.count) }
    }

    /// The rest of the payload, unprefixed (audio data at the end of a message).
    mutating func rest(_ value: some Collection<UInt8>) { bytes += value }

    private mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}

/// Reads what ``ByteWriter`` wrote, throwing ``DeviceProtocolError/Code/malformed`` (naming the field) on anything
/// short or invalid.
struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    var isAtEnd: Bool { position == bytes.endIndex }

    mutating func u8(_ field: String) throws(DeviceProtocolError) -> UInt8 {
        let raw = try take(1, field)
        return raw[raw.startIndex]
    }

    mutating func u16(_ field: String) throws(DeviceProtocolError) -> UInt16 { try integer(field) }
    mutating func u32(_ field: String) throws(DeviceProtocolError) -> UInt32 { try integer(field) }
    mutating func u64(_ field: String) throws(DeviceProtocolError) -> UInt64 { try integer(field) }

    mutating func bool(_ field: String) throws(DeviceProtocolError) -> Bool {
        switch try u8(field) {
        case 0: return false
        case 1: return true
        case let other: throw DeviceProtocolError(.malformed, "\(field): \(other) is not a boolean (0 or 1)")
        }
    }

    mutating func shortString(_ field: String) throws(DeviceProtocolError) -> String {
        let count = Int(try u8(field))
        return try string(count, field)
    }

    mutating func longString(_ field: String) throws(DeviceProtocolError) -> String {
        let count = Int(try u16(field))
        return try string(count, field)
    }

    mutating func fixed(_ count: Int, _ field: String) throws(DeviceProtocolError) -> [UInt8] {
        Array(try take(count, field))
    }

    /// Everything left.
    mutating func rest() -> [UInt8] {
        defer { position = bytes.endIndex }
        return Array(bytes[position...])
    }

    /// Throws unless every byte was read: trailing bytes mean the peer and this side disagree on the layout.
    func finish(_ message: String) throws(DeviceProtocolError) {
        guard isAtEnd else {
            throw DeviceProtocolError(
                .malformed, "\(message): \(bytes.endIndex - position) unexpected byte(s) after the last field")
        }
    }

    private mutating func string(_ count: Int, _ field: String) throws(DeviceProtocolError) -> String {
        let raw = try take(count, field)
        // `String(decoding:)` repairs invalid sequences; a repaired string is not what the peer sent.
        let value = String(decoding: raw, as: UTF8.self)
        guard value.utf8.elementsEqual(raw) else {
            throw DeviceProtocolError(.malformed, "\(field) is not valid UTF-8")
        }
        return value
    }

    private mutating func integer<T: FixedWidthInteger>(_ field: String) throws(DeviceProtocolError) -> T {
        let raw = try take(MemoryLayout<T>.size, field)
        var value: T = 0
        for (shift, byte) in raw.enumerated() { value |= T(byte) << (8 * shift) }
        return value
    }

    @discardableResult
    private mutating func take(_ count: Int, _ field: String) throws(DeviceProtocolError) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.endIndex - position >= count else {
            throw DeviceProtocolError(
                .malformed, "\(field): needs \(count) byte(s), \(bytes.endIndex - position) left in the message")
        }
        defer { position += count }
        return bytes[position..<position + count]
    }
}
