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
        while case .page(let page) = OggPage.read(bytes[offset...]) {
            if preSkip == nil {
                guard page.body.count >= 19, page.body.starts(with: Array("OpusHead".utf8)) else { return nil }
                preSkip = Int(page.body[10]) | Int(page.body[11]) << 8
            }
            if page.granule != UInt64.max { granule = Int(truncatingIfNeeded: page.granule) }
            ended = page.ends
            offset += page.length
            if ended { break }
        }
        guard let preSkip else { return nil }
        return OggOpusScan(validLength: offset, durationMs: max(granule - preSkip, 0) / 48, ended: ended)
    }
}
