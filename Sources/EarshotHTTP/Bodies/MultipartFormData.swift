import Foundation

/// An incremental `multipart/form-data` parser (RFC 7578): feed it the body as it arrives and it reports each
/// part's headers, its bytes in order, and its end — without holding a whole file in memory.
///
/// ```swift
/// var parser = try MultipartFormData(contentType: request.headers["Content-Type"])
/// for try await chunk in body {
///     for event in try parser.feed(chunk) { … }   // .part(headers), .data(bytes), .end
/// }
/// try parser.finish()                               // throws if the closing boundary never came
/// ```
///
/// Memory is bounded by the chunk size plus the boundary length (and 16 KiB of part headers). Errors are
/// ``HTTPError`` 400 with a message naming what is malformed.
public struct MultipartFormData: Sendable {
    /// The headers of one part.
    public struct Part: Sendable, Hashable {
        /// The form field name (`Content-Disposition: form-data; name="…"`).
        public var name: String
        /// The file name, for file fields.
        public var filename: String?
        /// The part's `Content-Type`, if sent.
        public var contentType: String?
    }

    /// What the parser found in the bytes fed so far.
    public enum Event: Sendable, Hashable {
        /// A part begins.
        case part(Part)
        /// Bytes of the current part's body (in order; a part's body may arrive in many pieces).
        case data([UInt8])
        /// The current part ended.
        case end
    }

    private enum State: Sendable {
        case preamble, afterDelimiter, headers, body, done
    }

    /// Largest header block of one part.
    public static let maximumHeaderBytes = 16 << 10

    private let delimiter: [UInt8]
    private var buffer: [UInt8]
    private var state = State.preamble

    /// A parser for `boundary`.
    public init(boundary: String) throws(HTTPError) {
        guard !boundary.isEmpty, boundary.utf8.count <= 70 else {
            throw .invalidArgument("multipart boundary must be 1-70 characters")
        }
        delimiter = Array("\r\n--\(boundary)".utf8)
        // The first delimiter has no CRLF before it: pretend it had, so every delimiter looks the same.
        buffer = Array("\r\n".utf8)
    }

    /// A parser for the boundary in a `multipart/form-data; boundary=…` content type.
    public init(contentType: String?) throws(HTTPError) {
        guard let contentType, let boundary = Self.boundary(fromContentType: contentType) else {
            throw .invalidArgument(
                "expected Content-Type multipart/form-data with a boundary, got \(contentType ?? "none")")
        }
        try self.init(boundary: boundary)
    }

    /// The `boundary` parameter of a `multipart/form-data` content type, or nil.
    public static func boundary(fromContentType contentType: String) -> String? {
        let parameters = Self.parameters(contentType)
        guard parameters.value.lowercased() == "multipart/form-data" else { return nil }
        return parameters.parameters["boundary"]
    }

    /// Whether the closing boundary has been seen.
    public var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// Consumes `bytes` and returns the events they complete.
    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(HTTPError) -> [Event] {
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        var start = 0
        defer { buffer.removeFirst(start) }
        loop: while true {
            switch state {
            case .preamble:
                guard let found = find(delimiter, from: start) else {
                    start = max(start, buffer.count - (delimiter.count - 1))
                    break loop
                }
                start = found + delimiter.count
                state = .afterDelimiter
            case .afterDelimiter:
                guard buffer.count - start >= 2 else { break loop }
                if buffer[start] == UInt8(ascii: "-") && buffer[start + 1] == UInt8(ascii: "-") {
                    state = .done
                    start = buffer.count  // the epilogue is ignored
                    break loop
                }
                // Transport padding (spaces/tabs) may follow a delimiter before its CRLF.
                var index = start
                while index < buffer.count, buffer[index] == 0x20 || buffer[index] == 0x09 { index += 1 }
                guard buffer.count - index >= 2 else { break loop }
                guard buffer[index] == 0x0D, buffer[index + 1] == 0x0A else {
                    throw .invalidArgument("malformed multipart body: a boundary is not followed by a line break")
                }
                start = index + 2
                state = .headers
            case .headers:
                guard let end = find(Array("\r\n\r\n".utf8), from: start) else {
                    if buffer.count - start > Self.maximumHeaderBytes {
                        throw .invalidArgument("multipart part headers exceed \(Self.maximumHeaderBytes) bytes")
                    }
                    // A part with no headers at all starts with the blank line directly.
                    if buffer.count - start >= 2, buffer[start] == 0x0D, buffer[start + 1] == 0x0A {
                        throw .invalidArgument("multipart part has no Content-Disposition header")
                    }
                    break loop
                }
                events.append(.part(try Self.part(fromHeaders: Array(buffer[start..<end]))))
                start = end + 4
                state = .body
            case .body:
                if let found = find(delimiter, from: start) {
                    if found > start { events.append(.data(Array(buffer[start..<found]))) }
                    events.append(.end)
                    start = found + delimiter.count
                    state = .afterDelimiter
                } else {
                    let safe = buffer.count - (delimiter.count - 1)
                    if safe > start {
                        events.append(.data(Array(buffer[start..<safe])))
                        start = safe
                    }
                    break loop
                }
            case .done:
                start = buffer.count
                break loop
            }
        }
        return events
    }

    /// Call after the last chunk: throws unless the closing boundary was seen.
    public func finish() throws(HTTPError) {
        guard isComplete else {
            throw .invalidArgument("multipart body ended before its closing boundary (truncated upload?)")
        }
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard buffer.count - start >= needle.count, let first = needle.first else { return nil }
        var index = start
        let last = buffer.count - needle.count
        while index <= last {
            if buffer[index] == first {
                var match = true
                for offset in 1..<needle.count where buffer[index + offset] != needle[offset] {
                    match = false
                    break
                }
                if match { return index }
            }
            index += 1
        }
        return nil
    }

    private static func part(fromHeaders bytes: [UInt8]) throws(HTTPError) -> Part {
        var disposition: String?
        var contentType: String?
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else {
                throw .invalidArgument("malformed multipart header line: \(line.prefix(80))")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-disposition" { disposition = value }
            if name == "content-type" { contentType = value }
        }
        guard let disposition else { throw .invalidArgument("multipart part has no Content-Disposition header") }
        let parsed = parameters(disposition)
        guard parsed.value.lowercased() == "form-data", let name = parsed.parameters["name"] else {
            throw .invalidArgument("multipart part is not form-data with a name: \(disposition.prefix(120))")
        }
        return Part(name: name, filename: parsed.parameters["filename"], contentType: contentType)
    }

    /// `value; key=token; key="quoted \" string"` → value and lowercased keys.
    static func parameters(_ header: String) -> (value: String, parameters: [String: String]) {
        var characters = Substring(header)
        func skipSpaces() { while characters.first == " " || characters.first == "\t" { characters.removeFirst() } }
        let value = characters.prefix { $0 != ";" }
        characters = characters.dropFirst(value.count)
        var parameters: [String: String] = [:]
        while characters.first == ";" {
            characters.removeFirst()
            skipSpaces()
            let key = characters.prefix { $0 != "=" && $0 != ";" }
            characters = characters.dropFirst(key.count)
            guard characters.first == "=" else { continue }
            characters.removeFirst()
            var text = ""
            if characters.first == "\"" {
                characters.removeFirst()
                while let next = characters.first, next != "\"" {
                    characters.removeFirst()
                    if next == "\\", let escaped = characters.first {
                        characters.removeFirst()
                        text.append(escaped)
                    } else {
                        text.append(next)
                    }
                }
                if characters.first == "\"" { characters.removeFirst() }
                characters = characters.drop { $0 != ";" }
            } else {
                let token = characters.prefix { $0 != ";" }
                characters = characters.dropFirst(token.count)
                text = token.trimmingCharacters(in: .whitespaces)
            }
            parameters[key.trimmingCharacters(in: .whitespaces).lowercased()] = text
        }
        return (value.trimmingCharacters(in: .whitespaces), parameters)
    }
}
