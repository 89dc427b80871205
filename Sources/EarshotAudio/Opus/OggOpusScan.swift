/// What survives of an Ogg Opus file that was being written when power was lost: the whole pages at its start.
public struct OggOpusScan: Sendable, Equatable {
    /// Bytes of whole, checksum-valid pages from the start of the file (the length to keep).
    public var validLength: Int
    /// The audio those pages hold, in milliseconds (from the last page's granule position minus the pre-skip).
    public var durationMs: Int
    /// Whether the last valid page ends the stream (the file was finished).
    public var ended: Bool

    /// A scan result (see ``scan(_:)``).
    public init(validLength: Int, durationMs: Int, ended: Bool) {
        self.validLength = validLength
        self.durationMs = durationMs
        self.ended = ended
    }

    /// Scans `bytes` page by page, checking each page's CRC, and stops at the first page that is cut off or
    /// damaged. Returns nil when not even the identification header is intact.
    public static func scan(_ bytes: [UInt8]) -> OggOpusScan? {
        var offset = 0
        var preSkip: Int?
        var granule = 0
        var ended = false
        var valid = 0
        while offset + 27 <= bytes.count, Array(bytes[offset..<offset + 4]) == Array("OggS".utf8) {
            let segments = Int(bytes[offset + 26])
            guard offset + 27 + segments <= bytes.count else { break }
            let bodyLength = bytes[offset + 27..<offset + 27 + segments].reduce(0) { $0 + Int($1) }
            let end = offset + 27 + segments + bodyLength
            guard end <= bytes.count else { break }
            var page = Array(bytes[offset..<end])
            let stored = page[22..<26].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) }
            page.replaceSubrange(22..<26, with: [0, 0, 0, 0])
            guard OggCRC.checksum(page) == stored else { break }
            let body = page[(27 + segments)...]
            if preSkip == nil {
                guard body.count >= 19, Array(body.prefix(8)) == Array("OpusHead".utf8) else { return nil }
                preSkip = Int(body[body.startIndex + 10]) | Int(body[body.startIndex + 11]) << 8
            }
            let position = page[6..<14].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * $1.offset) }
            if position != UInt64.max { granule = Int(truncatingIfNeeded: position) }
            ended = page[5] & 0x04 != 0
            offset = end
            valid = end
            if ended { break }
        }
        guard let preSkip else { return nil }
        return OggOpusScan(validLength: valid, durationMs: max(granule - preSkip, 0) / 48, ended: ended)
    }
}
