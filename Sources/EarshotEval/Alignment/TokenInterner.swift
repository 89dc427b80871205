/// Maps token strings to dense integer ids so that alignment compares integers, not strings.
///
/// Ids are assigned in first-seen order starting at 0. Intern the reference and the hypothesis with the same
/// interner so that equal strings get equal ids.
public struct TokenInterner: Sendable {
    private var ids: [String: Int32] = [:]
    private var strings: [String] = []

    /// Creates an empty interner.
    public init() {}

    /// The number of distinct tokens seen so far.
    public var count: Int { strings.count }

    /// The id of `token`, assigning the next free id when it is new.
    public mutating func id(_ token: String) -> Int32 {
        if let id = ids[token] { return id }
        let id = Int32(strings.count)
        ids[token] = id
        strings.append(token)
        return id
    }

    /// The ids of `tokens`, in order.
    public mutating func ids(_ tokens: some Sequence<String>) -> [Int32] {
        tokens.map { id($0) }
    }

    /// The ids of the whitespace-separated words of `text` (Unicode whitespace), without building an array of
    /// strings first: the fast path for scoring without normalisation.
    public mutating func ids(splittingOnWhitespace text: String) -> [Int32] {
        var result: [Int32] = []
        let scalars = text.unicodeScalars
        var start: String.UnicodeScalarView.Index? = nil
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let isSpace =
                scalar.isASCII
                ? (scalar == " " || (scalar.value >= 0x09 && scalar.value <= 0x0D)) : scalar.properties.isWhitespace
            if isSpace {
                if let begin = start {
                    result.append(id(String(scalars[begin..<index])))
                    start = nil
                }
            } else if start == nil {
                start = index
            }
            index = scalars.index(after: index)
        }
        if let begin = start { result.append(id(String(scalars[begin..<scalars.endIndex]))) }
        return result
    }

    /// The string an id was assigned to.
    public func token(_ id: Int32) -> String { strings[Int(id)] }
}
