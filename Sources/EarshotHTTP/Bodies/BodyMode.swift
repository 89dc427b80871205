/// How a route receives its request body. Chosen per route; the default is ``buffered(limit:)`` with the server's
/// ``HTTPServer/Configuration/defaultBodyLimit``.
///
/// Every mode enforces a limit: a `Content-Length` over it is refused with 413 before any byte is read; a chunked
/// body that grows past it is cut off and answered with 413 (see docs/http.md for the exact behaviour).
public struct BodyMode: Sendable {
    enum Kind: Sendable {
        case buffered
        case stream
        case file(directory: String)
    }

    let kind: Kind
    let limit: Int?

    /// The whole body in memory (``RequestBody/bytes(_:)``), for JSON and small payloads. The handler runs once the
    /// body has arrived. `nil` uses the server's default limit.
    public static func buffered(limit: Int? = nil) -> BodyMode {
        BodyMode(kind: .buffered, limit: limit)
    }

    /// The body as an `AsyncSequence` of chunks (``RequestBody/stream(_:)``); the handler starts as soon as the
    /// headers arrive. When the handler reads slower than the client sends, the connection is suspended instead of
    /// buffering (at most ``HTTPServer/Configuration/streamBufferBytes`` are held).
    public static func stream(limit: Int) -> BodyMode {
        BodyMode(kind: .stream, limit: limit)
    }

    /// The body written to a new file in `directory` as it arrives, with SHA-256 and MD5 computed on the fly
    /// (``RequestBody/file(_:)``). The handler runs once the body is complete; the file is deleted after the handler
    /// returns unless the handler moved it away (rename it into place to keep it).
    public static func file(limit: Int, directory: String) -> BodyMode {
        BodyMode(kind: .file(directory: directory), limit: limit)
    }
}
