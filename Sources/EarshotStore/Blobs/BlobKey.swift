/// The name of a blob: `/`-separated segments such as `uploads/file_7k2m…/part-00001`.
///
/// Each segment starts with `[a-z0-9]` and continues with `[a-z0-9._-]`, so `.`, `..`, hidden names, empty
/// segments, absolute paths, backslashes, percent-encoding, control characters and non-ASCII look-alikes are
/// all impossible: a key can be joined to a directory or a bucket URL without escaping it. Keys are at most
/// ``maximumLength`` bytes, segments at most ``maximumSegmentLength``, and at most ``maximumDepth`` segments.
///
/// Validate every key built from outside input with ``init(_:)``; it throws ``StoreError/Code-swift.struct/invalidKey``
/// with the reason.
public struct BlobKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The key as a string, e.g. `uploads/file_x/part-00001`.
    public let rawValue: String

    public static let maximumLength = 512
    public static let maximumSegmentLength = 128
    public static let maximumDepth = 16

    /// Validates `string` as a key.
    public init(_ string: String) throws(StoreError) {
        if let problem = Self.problem(in: string) {
            throw StoreError(.invalidKey, "invalid blob key \"\(Self.printable(string))\": \(problem)")
        }
        rawValue = string
    }

    /// A key made of `segments` joined with `/`, each validated.
    public init(segments: [String]) throws(StoreError) {
        try self.init(segments.joined(separator: "/"))
    }

    /// True when `string` is a valid key.
    public static func isValid(_ string: String) -> Bool { problem(in: string) == nil }

    /// The key's segments.
    public var segments: [Substring] { rawValue.split(separator: "/") }

    /// The last segment (the "file name").
    public var name: Substring { segments.last ?? Substring(rawValue) }

    /// This key with `segment` appended.
    public func appending(_ segment: String) throws(StoreError) -> BlobKey {
        try BlobKey(rawValue + "/" + segment)
    }

    public var description: String { rawValue }

    public static func < (lhs: BlobKey, rhs: BlobKey) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Checks a listing prefix: empty, or the beginning of some valid key (`uploads/`, `uploads/file_`).
    static func validatePrefix(_ prefix: String) throws(StoreError) {
        guard prefix.isEmpty || isValid(prefix + "x") else {
            throw StoreError(
                .invalidKey,
                "invalid blob key prefix \"\(printable(prefix))\": it must be the beginning of a valid key")
        }
    }

    /// Why `string` is not a key, or nil when it is one.
    private static func problem(in string: String) -> String? {
        let bytes = Array(string.utf8)
        guard !bytes.isEmpty else { return "it is empty" }
        guard bytes.count <= maximumLength else { return "it is longer than \(maximumLength) bytes" }
        var segmentLength = 0
        var depth = 1
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "/"):
                guard segmentLength > 0 else {
                    return "it has an empty segment (a leading, trailing or doubled \"/\")"
                }
                segmentLength = 0
                depth += 1
                guard depth <= maximumDepth else { return "it has more than \(maximumDepth) segments" }
                continue
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                break
            case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                guard segmentLength > 0 else {
                    return "a segment starts with \"\(Character(UnicodeScalar(byte)))\"; segments start with a-z or 0-9"
                }
            default:
                let allowed = "allowed are a-z, 0-9, \".\", \"_\", \"-\" and \"/\" between segments"
                guard byte < 0x80 else { return "it contains non-ASCII characters; \(allowed)" }
                let what =
                    byte < 0x20 || byte == 0x7F ? "a control character" : "\"\(Character(UnicodeScalar(byte)))\""
                return "it contains \(what); \(allowed)"
            }
            segmentLength += 1
            guard segmentLength <= maximumSegmentLength else {
                return "a segment is longer than \(maximumSegmentLength) bytes"
            }
        }
        guard segmentLength > 0 else { return "it ends with \"/\"" }
        return nil
    }

    /// `string` with control characters escaped, for error messages.
    private static func printable(_ string: String) -> String {
        let shown = string.unicodeScalars.prefix(80).map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return shown.joined() + (string.unicodeScalars.count > 80 ? "…" : "")
    }
}
