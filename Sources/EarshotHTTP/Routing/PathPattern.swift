import Foundation

/// A route path such as `/records/{id}/audio` or `/console/*`, split into segments.
///
/// Matching ignores empty segments, so a trailing slash and doubled slashes do not matter (`/records/` matches
/// `/records`). `{name}` captures one segment; a final `*` captures the rest of the path (possibly empty).
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        case catchAll
    }

    let segments: [Segment]

    /// Parses a pattern; a malformed one (`{}`, `*` before the end) is a programming error (trap).
    public init(_ path: String) {
        var segments: [Segment] = []
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        for (index, part) in parts.enumerated() {
            if part == "*" {
                precondition(index == parts.count - 1, "`*` must be the last segment of route \(path)")
                segments.append(.catchAll)
            } else if part.hasPrefix("{") && part.hasSuffix("}") {
                let name = String(part.dropFirst().dropLast())
                precondition(!name.isEmpty && !name.contains("{"), "bad parameter segment `\(part)` in \(path)")
                segments.append(.parameter(name))
            } else {
                precondition(!part.contains("{") && !part.contains("}"), "bad segment `\(part)` in route \(path)")
                segments.append(.literal(String(part)))
            }
        }
        self.segments = segments
    }

    /// The normalised pattern (`/records/{id}`), used as the route label in logs and metrics.
    public var description: String {
        "/"
            + segments.map {
                switch $0 {
                case .literal(let text): text
                case .parameter(let name): "{\(name)}"
                case .catchAll: "*"
                }
            }.joined(separator: "/")
    }

    /// Sort key: at the first differing position a literal beats a parameter, which beats `*`.
    var rank: [Int] {
        segments.map {
            switch $0 {
            case .literal: 0
            case .parameter: 1
            case .catchAll: 2
            }
        }
    }

    /// The captured parameters when `parts` (the request path split on `/`) matches, else nil.
    func match(_ parts: [Substring]) -> [(String, String)]? {
        // Most patterns are ruled out by their length alone, before anything is compared or captured.
        guard segments.last == .catchAll ? parts.count >= segments.count - 1 : parts.count == segments.count else {
            return nil
        }
        var captured: [(String, String)] = []
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .catchAll:
                captured.append(("*", parts[index...].joined(separator: "/")))
                return captured
            case .literal(let text):
                // Byte for byte, as nginx matches locations; String's `==` (canonical equivalence) cost 2 % of a
                // small request.
                guard index < parts.count, parts[index].utf8.elementsEqual(text.utf8) else { return nil }
            case .parameter(let name):
                guard index < parts.count else { return nil }
                captured.append((name, String(parts[index])))
            }
        }
        return parts.count == segments.count ? captured : nil
    }

    /// The names of the `{name}` segments, in order.
    public var parameterNames: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// The parameters of `path` (percent-decoded) when it matches this pattern, else nil.
    public func match(path: String) -> Parameters? {
        let parts = Self.segments(of: path).map { Substring($0.removingPercentEncoding ?? String($0)) }
        return match(parts).map(Parameters.init)
    }

    /// `path` split at each `/`, empty segments dropped. It splits Unicode scalars, not characters: a
    /// `/` followed by a combining mark (`/%CC%81` once decoded) is one grapheme cluster, and a split on
    /// characters would merge it into the next segment.
    static func segments(of path: String) -> [Substring] {
        path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: true).map(Substring.init)
    }

    /// The path with each `{name}` replaced by `values[name]`, percent-encoded as a path segment. A missing value
    /// is a programming error (trap); a pattern with `*` cannot be expanded.
    public func expand(_ values: [String: String]) -> String {
        "/"
            + segments.map { segment -> String in
                switch segment {
                case .literal(let text): return text
                case .parameter(let name):
                    guard let value = values[name] else { preconditionFailure("no value for {\(name)} in \(self)") }
                    return value.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? value
                case .catchAll: preconditionFailure("\(self) ends in `*` and cannot be expanded")
                }
            }.joined(separator: "/")
    }

    /// RFC 3986 unreserved characters: what a path segment may hold without encoding.
    private static let segmentCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func joined(_ prefix: String, _ path: String) -> String {
        let head = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        let tail = path.hasPrefix("/") ? path : "/" + path
        return head + tail
    }
}
