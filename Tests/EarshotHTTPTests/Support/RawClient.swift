import EarshotHTTP
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking socket code on its own thread so it never holds a Swift concurrency thread.
func offThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

struct RawError: Error, CustomStringConvertible {
    let description: String
    let code: Int32

    init(_ what: String, code: Int32 = errno) {
        description = "\(what): \(String(cString: strerror(code)))"
        self.code = code
    }
}

/// A parsed HTTP/1.1 response read from a raw socket.
struct RawResponse: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking TCP client for exact control over what is sent (chunked bodies, half requests, huge headers).
final class RawConnection {
    let fd: Int32

    /// Connects to 127.0.0.1:`port`; reads time out after `timeout` seconds.
    init(port: Int, timeout: Int = 15) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawError("socket") }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = RawError("connect", code: errno)
            Glibc.close(fd)
            throw error
        }
    }

    deinit {
        Glibc.close(fd)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw RawError("send")
                }
                offset += n
            }
        }
    }

    /// Reads until the peer closes (or the read timeout passes); returns what arrived and whether EOF was seen.
    func readToEnd() -> (bytes: [UInt8], closed: Bool) {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 {
                out.append(contentsOf: buffer[0..<n])
            } else if n == 0 {
                return (out, true)
            } else if errno == EINTR {
                continue
            } else {
                return (out, errno == ECONNRESET)
            }
        }
    }

    /// Reads one response. `bodyExpected: false` for HEAD (headers only).
    func readResponse(bodyExpected: Bool = true) throws -> RawResponse {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        var contentLength: Int?
        var head = RawResponse(status: 0, headers: [:], body: [])
        while true {
            if headerEnd == nil, let range = Self.find(separator, in: data) {
                headerEnd = range
                head = Self.parseHead(Array(data[0..<range]))
                contentLength = bodyExpected ? Int(head.headers["Content-Length"] ?? "") : 0
            }
            if let end = headerEnd, let length = contentLength, data.count >= end + 4 + length {
                return RawResponse(
                    status: head.status, headers: head.headers, body: Array(data[(end + 4)..<(end + 4 + length)]))
            }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 {
                data.append(contentsOf: buffer[0..<n])
            } else if n == 0, let end = headerEnd {
                return RawResponse(status: head.status, headers: head.headers, body: Array(data[(end + 4)...]))
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                throw RawError(n == 0 ? "connection closed before a response" : "recv", code: n == 0 ? 0 : errno)
            }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }

    private static func parseHead(_ bytes: [UInt8]) -> RawResponse {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        let status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(
                name: String(line[..<colon]),
                value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
        return RawResponse(status: status, headers: headers, body: [])
    }
}

/// Sends one request with `Connection: close` and reads the response, off the Swift pool.
func raw(
    _ port: Int, _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []
) async throws -> RawResponse {
    try await offThread {
        let connection = try RawConnection(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        try connection.send(head + "\r\n")
        if !body.isEmpty { try connection.send(body) }
        return try connection.readResponse(bodyExpected: method != "HEAD")
    }
}
