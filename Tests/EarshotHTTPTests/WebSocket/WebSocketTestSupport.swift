import EarshotHTTP
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The routes the WebSocket tests talk to.
enum WebSocketRoutes {
    /// Counts what the flood session saw.
    final class Observations: Sendable {
        private let state = Mutex((sendFailed: false, closeCode: WebSocketCloseCode?.none, sessions: 0))
        func sendFailed(_ code: WebSocketCloseCode?) { state.withLock { $0.sendFailed = true; $0.closeCode = code } }
        func sessionEnded(_ code: WebSocketCloseCode?) { state.withLock { $0.sessions += 1; $0.closeCode = code } }
        var snapshot: (sendFailed: Bool, closeCode: WebSocketCloseCode?, sessions: Int) { state.withLock { $0 } }
    }

    static let limits = WebSocket.Configuration(
        maxFramePayload: 256 << 10, maxMessageSize: 512 << 10, maxSendQueue: 256 << 10,
        sendStallTimeout: .seconds(1), pingInterval: .seconds(1), idleTimeout: .seconds(3),
        closeTimeout: .seconds(1))

    /// The flood's limits: no idle timeout within a test, so that only the send stall (1 s) can close it, however
    /// long a loaded machine takes to fill the queues (with the 3 s idle timeout it sometimes closed with 1001 first).
    static let floodLimits: WebSocket.Configuration = {
        var flood = limits
        flood.idleTimeout = .seconds(120)
        flood.pingInterval = .seconds(120)
        return flood
    }()

    static func router(_ observations: Observations = Observations()) -> Router {
        let router = Router()
        // Echoes every message; offers the `earshot.test` subprotocol when the client asks for it.
        router.get("/echo") { request, _ in
            let chosen = request.webSocketSubprotocols.first { $0 == "earshot.test" }
            return try .webSocket(for: request, subprotocol: chosen, configuration: limits) { socket in
                for await message in socket.messages { try await socket.send(message) }
                observations.sessionEnded(socket.closeCode)
            }
        }
        // Sends 64 KiB messages as fast as it can and never reads: a client that does not read either.
        router.get("/flood") { request, _ in
            try .webSocket(for: request, configuration: floodLimits) { socket in
                let chunk = [UInt8](repeating: 0x5A, count: 64 << 10)
                do {
                    while true { try await socket.send(.binary(chunk)) }
                } catch {
                    observations.sendFailed(socket.closeCode)
                }
            }
        }
        // Refuses callers without the right header, before upgrading.
        router.get("/guarded") { request, _ in
            guard request.headers["Authorization"] == "Bearer letmein" else {
                throw HTTPError.unauthorized("send a bearer token")
            }
            return try .webSocket(for: request) { socket in
                try await socket.send(text: "welcome")
                for await _ in socket.messages {}
            }
        }
        return router
    }
}

/// A hand-driven WebSocket client over a raw socket: exact control over every byte (unmasked frames, bad lengths,
/// abrupt closes).
// SAFETY: each test drives one RawWebSocket from one thread at a time (handed between threads, never shared).
final class RawWebSocket: @unchecked Sendable {
    let connection: RawConnection
    let head: String
    private var parser = WebSocketFrameParser(role: .client, maxFramePayload: 16 << 20)

    /// Connects and performs the opening handshake with `key`; `head` is the server's answer head.
    init(port: Int, path: String = "/echo", key: String = "dGhlIHNhbXBsZSBub25jZQ==", extraHeaders: String = "")
        throws
    {
        connection = try RawConnection(port: port, timeout: 10)
        try connection.send(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\(extraHeaders)\r\n")
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while !bytes.ends(with: Array("\r\n\r\n".utf8)) {
            guard recv(connection.fd, &byte, 1, 0) == 1 else { throw RawError("handshake") }
            bytes.append(byte)
        }
        head = String(decoding: bytes, as: UTF8.self)
    }

    var status: Int { Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0 }

    func send(_ frame: WebSocketFrame, masked: Bool = true) throws {
        try connection.send(frame.encoded(maskingKey: masked ? [0x11, 0x22, 0x33, 0x44] : nil))
    }

    /// The next frame from the server, or nil when the connection closed first. The server pings every second in
    /// tests, so by default a ping is answered with its pong and skipped (a loaded machine must not turn a keep-alive
    /// into the frame a test expected); `answeringPings: false` returns pings and answers nothing.
    func next(answeringPings: Bool = true) throws -> WebSocketFrame? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let frame = try parser.next() {
                guard answeringPings, frame.opcode == .ping else { return frame }
                try? send(WebSocketFrame(opcode: .pong, payload: frame.payload))  // best effort: it may be closing
                continue
            }
            let n = recv(connection.fd, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            parser.append(buffer[0..<n])
        }
    }

    /// Reads until the server's close frame; returns its code (nil if the connection ended without one).
    func closeCode() throws -> WebSocketCloseCode? {
        while let frame = try next() {
            if frame.opcode == .close, frame.payload.count >= 2 {
                return WebSocketCloseCode(rawValue: UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]))
            }
        }
        return nil
    }

    /// True when the server closed the TCP connection (EOF) within the socket's timeout.
    func serverClosedTCP() -> Bool {
        connection.readToEnd().closed
    }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
