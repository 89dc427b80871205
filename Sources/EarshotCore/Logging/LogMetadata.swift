/// Key-value pairs attached to log lines, in the order the keys were first added; each key appears once.
///
/// Written as a dictionary literal (`["job_id": id, "kind": "summary"]`); a key repeated in a literal keeps its
/// first position and its last value. Setting a key that is present replaces its value in place, so the order of
/// the keys in a line never depends on hashing: it is the order they were added, outermost first (see
/// ``Logger/log(_:_:metadata:)``).
public struct LogMetadata: Sendable, Equatable, ExpressibleByDictionaryLiteral, RandomAccessCollection {
    public typealias Element = (key: String, value: String)

    private var pairs: [Element]

    /// No metadata.
    public init() {
        pairs = []
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        pairs = []
        pairs.reserveCapacity(elements.count)
        for (key, value) in elements { self[key] = value }
    }

    /// The value of `key`, or nil. Setting a value replaces the key's value in place or appends the key; setting nil
    /// removes it.
    public subscript(key: String) -> String? {
        get { pairs.first { $0.key == key }?.value }
        set {
            let index = pairs.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): pairs[index].value = value
            case (let index?, nil): pairs.remove(at: index)
            case (nil, let value?): pairs.append((key, value))
            case (nil, nil): break
            }
        }
    }

    /// These pairs updated with `other`'s: `other`'s value wins for a key both hold, and its new keys come after
    /// these.
    public func merging(_ other: LogMetadata) -> LogMetadata {
        if pairs.isEmpty { return other }
        var merged = self
        for (key, value) in other.pairs { merged[key] = value }
        return merged
    }

    public var startIndex: Int { pairs.startIndex }
    public var endIndex: Int { pairs.endIndex }
    public subscript(position: Int) -> Element { pairs[position] }

    public static func == (lhs: LogMetadata, rhs: LogMetadata) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.key == $1.key && $0.value == $1.value }
    }
}
