/// Maps token strings to dense integer ids so that alignment compares integers, not strings.
///
/// Ids are assigned in first-seen order starting at 0. Intern the reference and the hypothesis with the same
/// interner so that equal strings get equal ids. Tokens are keyed by their UTF-8 bytes in an open-addressing
/// table over one byte arena (no `String` is built per token), which keeps bulk scoring several times faster
/// than a `[String: Int32]` dictionary. Equal strings have equal UTF-8 bytes here because tokens are compared
/// after normalisation, exactly as jiwer compares them.
public struct TokenInterner: Sendable {
    /// All token bytes, back to back.
    private var arena: [UInt8] = []
    /// Per id: start offset and length in `arena`.
    private var spans: [(start: Int32, count: Int32)] = []
    /// Open-addressing slots holding id + 1 (0 = empty); the count is a power of two.
    private var slots: [Int32] = Array(repeating: 0, count: 1024)

    /// Creates an empty interner.
    public init() {}

    /// The number of distinct tokens seen so far.
    public var count: Int { spans.count }

    /// The id of `token`, assigning the next free id when it is new.
    public mutating func id(_ token: String) -> Int32 {
        var token = token
        return token.withUTF8 { id(bytes: $0) }
    }

    /// The ids of `tokens`, in order.
    public mutating func ids(_ tokens: some Sequence<String>) -> [Int32] {
        tokens.map { id($0) }
    }

    /// The ids of the whitespace-separated words of `text` (Unicode whitespace), without building an array of
    /// strings first: the fast path for scoring without normalisation.
    public mutating func ids(splittingOnWhitespace text: String) -> [Int32] {
        var text = text
        return text.withUTF8 { bytes in
            // Non-ASCII text may contain Unicode whitespace (U+3000, U+00A0…): split it by scalars.
            if bytes.contains(where: { $0 >= 0x80 }) {
                return idsSplittingOnUnicodeWhitespace(String(decoding: bytes, as: UTF8.self))
            }
            var result: [Int32] = []
            result.reserveCapacity(bytes.count / 4)
            var start = -1
            for index in 0..<bytes.count {
                let byte = bytes[index]
                if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
                    if start >= 0 {
                        result.append(id(bytes: UnsafeBufferPointer(rebasing: bytes[start..<index])))
                        start = -1
                    }
                } else if start < 0 {
                    start = index
                }
            }
            if start >= 0 { result.append(id(bytes: UnsafeBufferPointer(rebasing: bytes[start...]))) }
            return result
        }
    }

    /// The string an id was assigned to.
    public func token(_ id: Int32) -> String {
        let span = spans[Int(id)]
        return String(decoding: arena[Int(span.start)..<Int(span.start + span.count)], as: UTF8.self)
    }

    private mutating func idsSplittingOnUnicodeWhitespace(_ text: String) -> [Int32] {
        text.split(whereSeparator: { $0.isWhitespace }).map { id(String($0)) }
    }

    /// FNV-1a (64-bit) of the bytes, folded for the slot index.
    private static func hash(_ bytes: some Sequence<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }

    private mutating func id(bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        let mask = slots.count - 1
        var slot = Self.hash(bytes) & mask
        while true {
            let stored = slots[slot]
            if stored == 0 { break }
            let span = spans[Int(stored - 1)]
            if Int(span.count) == bytes.count
                && arena[Int(span.start)..<Int(span.start + span.count)].elementsEqual(bytes)
            {
                return stored - 1
            }
            slot = (slot + 1) & mask
        }
        let id = Int32(spans.count)
        spans.append((Int32(arena.count), Int32(bytes.count)))
        arena.append(contentsOf: bytes)
        slots[slot] = id + 1
        if spans.count * 2 > slots.count { grow() }
        return id
    }

    private mutating func grow() {
        var grown = [Int32](repeating: 0, count: slots.count * 2)
        let mask = grown.count - 1
        for (index, span) in spans.enumerated() {
            var slot = Self.hash(arena[Int(span.start)..<Int(span.start + span.count)]) & mask
            while grown[slot] != 0 { slot = (slot + 1) & mask }
            grown[slot] = Int32(index + 1)
        }
        slots = grown
    }
}
