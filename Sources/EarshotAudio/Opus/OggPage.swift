/// One Ogg page (RFC 3533) read from the front of some bytes: the reading half of what ``OggOpusStream`` writes,
/// shared by ``OggOpusScan`` (recovering a cut-off file) and ``OggOpusDecoder`` (live Opus input).
struct OggPage {
    /// Header flags: 0x01 the first packet continues one from the previous page, 0x02 first page of the stream,
    /// 0x04 last page of the stream.
    var flags: UInt8
    /// The granule position: for Opus, 48 kHz samples decoded up to the end of the page's last finished packet
    /// (pre-skip included); `UInt64.max` when no packet finishes on this page.
    var granule: UInt64
    var serial: UInt32
    var sequence: UInt32
    /// The segment table: packet `n` is the run of segments up to and including the first one shorter than 255.
    var lacing: [UInt8]
    /// The page's payload: its packets (or pieces of them), back to back.
    var body: [UInt8]
    /// The whole page's length in bytes.
    var length: Int

    var continues: Bool { flags & 0x01 != 0 }
    var begins: Bool { flags & 0x02 != 0 }
    var ends: Bool { flags & 0x04 != 0 }

    /// The largest page there can be: a 27-byte header, 255 lacing values, 255 segments of 255 bytes.
    static let maximumLength = 27 + 255 + 255 * 255

    enum Reading {
        /// A whole page with a valid checksum.
        case page(OggPage)
        /// `bytes` is a valid start of a page that is not complete yet.
        case incomplete
        /// Not a page: no capture pattern, another version, or a wrong checksum (the reason).
        case invalid(String)
    }

    /// Reads the page at the start of `bytes`.
    static func read(_ bytes: ArraySlice<UInt8>) -> Reading {
        let start = bytes.startIndex
        let capture = bytes.prefix(4)
        guard capture.elementsEqual(Array("OggS".utf8).prefix(capture.count)) else {
            return .invalid("no Ogg page starts here (the bytes do not begin with OggS)")
        }
        guard bytes.count >= 27 else { return .incomplete }
        guard bytes[start + 4] == 0 else { return .invalid("Ogg stream structure version \(bytes[start + 4])") }
        let segments = Int(bytes[start + 26])
        guard bytes.count >= 27 + segments else { return .incomplete }
        let lacing = Array(bytes[start + 27..<start + 27 + segments])
        let length = 27 + segments + lacing.reduce(0) { $0 + Int($1) }
        guard bytes.count >= length else { return .incomplete }
        var page = Array(bytes[start..<start + length])
        let stored = UInt32(littleEndian: page, at: 22)
        page.replaceSubrange(22..<26, with: [0, 0, 0, 0])
        guard OggCRC.checksum(page) == stored else { return .invalid("an Ogg page's checksum does not match") }
        return .page(
            OggPage(
                flags: page[5], granule: UInt64(littleEndian: page, at: 6), serial: UInt32(littleEndian: page, at: 14),
                sequence: UInt32(littleEndian: page, at: 18), lacing: lacing, body: Array(page[(27 + segments)...]),
                length: length))
    }

    /// The page's packet pieces in order, each with whether it finishes its packet (the last piece of a page whose
    /// lacing ends with 255 continues on the next page).
    var pieces: [(bytes: ArraySlice<UInt8>, finished: Bool)] {
        var result: [(ArraySlice<UInt8>, Bool)] = []
        var offset = 0
        var pieceStart = 0
        for value in lacing {
            offset += Int(value)
            if value < 255 {
                result.append((body[pieceStart..<offset], true))
                pieceStart = offset
            }
        }
        if pieceStart < offset || lacing.last == 255 { result.append((body[pieceStart..<offset], false)) }
        return result
    }
}

extension FixedWidthInteger {
    /// The little-endian integer at `offset` of `bytes`.
    init(littleEndian bytes: [UInt8], at offset: Int) {
        var value: Self = 0
        for index in 0..<MemoryLayout<Self>.size { value |= Self(bytes[offset + index]) << (8 * index) }
        self = value
    }
}
