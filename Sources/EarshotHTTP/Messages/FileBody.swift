import EarshotCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An open regular file to send as a response body.
///
/// The descriptor is owned by this value: it is handed to libmicrohttpd (which closes it after sending) or closed
/// when the last copy is dropped. The server applies `Range` (206/416), `If-None-Match` and `If-Modified-Since`
/// (304) to `GET`/`HEAD` requests when the response status is 200.
public struct FileBody: Sendable {
    /// Size in bytes, from `fstat` at open time.
    public let size: Int64
    /// Modification time in whole seconds since the epoch.
    public let modified: Int64
    /// A strong validator derived from size and modification time (`"<size>-<mtime>"` in hex).
    public let etag: String
    let descriptor: OwnedDescriptor

    /// Opens `path` for reading. Throws ``HTTPError/notFound(_:)`` when it does not exist or is not a regular file.
    public init(path: String) throws(HTTPError) {
        guard let file = try? FileDescriptor.open(path, O_RDONLY) else { throw HTTPError.notFound("no such file") }
        do {
            try self.init(descriptor: file.rawValue)
        } catch {
            try? file.close()
            throw error
        }
    }

    /// Takes ownership of an open descriptor of a regular file (closed on failure or after sending).
    public init(descriptor fd: Int32) throws(HTTPError) {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw HTTPError.notFound("not a regular file")
        }
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec)
        etag = "\"\(String(size, radix: 16))-\(String(modified, radix: 16))\""
        descriptor = OwnedDescriptor(fd)
    }
}

extension Response {
    /// A file response served with `sendfile(2)`, with `Accept-Ranges: bytes`, `ETag` and `Last-Modified`.
    ///
    /// Throws ``HTTPError/notFound(_:)`` when `path` is missing or not a regular file.
    public static func file(
        path: String, contentType: String = "application/octet-stream", headers: HTTPHeaders = [:]
    ) throws(HTTPError) -> Response {
        var headers = headers
        headers["Content-Type"] = contentType
        return Response(status: .ok, headers: headers, body: .file(try FileBody(path: path)))
    }
}

/// A file descriptor closed exactly once: either taken (by libmicrohttpd) or closed on deinit.
final class OwnedDescriptor: Sendable {
    private let value: Mutex<Int32?>

    init(_ fd: Int32) {
        value = Mutex(fd)
    }

    /// Transfers ownership to the caller; nil if already taken.
    func take() -> Int32? {
        value.withLock { fd in
            defer { fd = nil }
            return fd
        }
    }

    deinit {
        if let fd = take() { close(fd) }
    }
}

/// A single byte range resolved against a file size (RFC 9110 §14).
enum ByteRange: Equatable {
    /// Serve the whole representation (no `Range`, a malformed one, another unit, or several ranges).
    case whole
    /// Serve `first...last` (inclusive) as 206.
    case partial(first: Int64, last: Int64)
    /// 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    /// Interprets a `Range` header value for a representation of `size` bytes.
    ///
    /// Malformed values are ignored (the whole file is served), as RFC 9110 allows. Multiple ranges are answered with
    /// the whole file rather than `multipart/byteranges`.
    static func resolve(_ header: String?, size: Int64) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.trimmingASCIISpaces()
        guard trimmed.utf8.count > 6, trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = String(trimmed.dropFirst(6)).trimmingASCIISpaces()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let head = String(spec[..<dash]).trimmingASCIISpaces()
        let tail = String(spec[spec.index(after: dash)...]).trimmingASCIISpaces()
        if head.isEmpty {
            // Suffix range: the last `n` bytes.
            guard let n = Self.number(tail) else { return .whole }
            guard n > 0, size > 0 else { return .unsatisfiable }
            return .partial(first: max(0, size - n), last: size - 1)
        }
        guard let first = Self.number(head) else { return .whole }
        if tail.isEmpty {
            return first < size ? .partial(first: first, last: size - 1) : .unsatisfiable
        }
        guard let last = Self.number(tail), last >= first else { return .whole }
        guard first < size else { return .unsatisfiable }
        return .partial(first: first, last: min(last, size - 1))
    }

    private static func number(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return Int64(text)
    }
}
