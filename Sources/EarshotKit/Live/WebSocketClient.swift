#if !canImport(Darwin)
    import EarshotDevice
    import Foundation

    #if canImport(Glibc)
        import Glibc
    #endif

    /// A small RFC 6455 client for Linux, where Foundation's `URLSessionWebSocketTask` cannot connect (swift-corelibs
    /// hands WebSockets to libcurl, and Debian's libcurl is built without them: "WebSockets not supported by
    /// libcurl"). ``LiveSession`` uses `URLSessionWebSocketTask` on Apple platforms and this on Linux.
    ///
    /// What it does: the opening handshake (a random `Sec-WebSocket-Key`, the `Sec-WebSocket-Accept` check), text and
    /// binary messages out as frames masked with a fresh random key each (section 5.3), split into
    /// ``Configuration/maxFramePayload`` fragments; messages in, joined from fragments, text checked as UTF-8; a pong
    /// for every ping; the closing handshake both ways; a size limit on incoming messages (1009, refused from the
    /// frame header before the payload is read). Plain `ws://` only: it has no TLS, so `wss://` is refused with a
    /// clear error.
    ///
    /// Why not the server's frame codec (`EarshotHTTP/WebSocket`): EarshotKit ships to iOS apps and may depend only on
    /// EarshotAPI and EarshotDevice (`scripts/lint-kit`), while EarshotHTTP is the server's module and links
    /// libmicrohttpd; moving the codec into a module of its own would touch the server's WebSocket while it is being
    /// extended, for about a hundred lines of the client's half (unmasked frames in, masked frames out).
    ///
    /// Threads: blocking socket calls never run on Swift's cooperative pool. One thread of its own reads and parses
    /// and calls `onEvent` (in order, from that thread); writes go through a serial dispatch queue. Safe to use from
    /// several tasks.
    final class WebSocketClient: @unchecked Sendable {
        // SAFETY: `socket` is thread-safe (StreamSocket); every mutable field is inside `state` (a Locked);
        // `writer` serialises writes so frames never interleave; the reader thread alone touches its parser state,
        // which lives in `read()`'s locals.

        /// Limits and timers.
        struct Configuration: Sendable {
            /// The largest incoming message (its fragments together); a bigger one closes the connection with 1009.
            var maxMessageSize = 16 << 20
            /// Outgoing messages larger than this go out as several frames.
            var maxFramePayload = 1 << 20
            /// How long ``close(code:reason:)`` waits for the server's close frame before dropping the connection.
            var closeTimeout: TimeInterval = 5
        }

        /// A whole message.
        enum Message: Sendable, Equatable {
            case text(String)
            case binary([UInt8])
        }

        /// What the reader thread reports.
        enum Event: Sendable, Equatable {
            case message(Message)
            /// The connection ended: the close frame's code and reason (1005 when the frame had no code, 1006 when
            /// the TCP connection ended without a close frame, the code this client closed with after a protocol
            /// violation). Always the last event.
            case closed(code: Int, reason: String)
        }

        /// The server refused the upgrade: its status, headers and (the start of) its body.
        struct HandshakeRefusal: Error, Sendable {
            let status: Int
            let headers: [String: String]
            let body: Data
        }

        private struct State {
            var closeSent = false
            var closed = false
        }

        let configuration: Configuration
        private let socket: StreamSocket
        private let writer = DispatchQueue(label: "earshot.kit.websocket.writer")
        private let state = Locked(State())
        private let closedSignal = DispatchSemaphore(value: 0)

        private init(socket: StreamSocket, configuration: Configuration) {
            self.socket = socket
            self.configuration = configuration
        }

        /// Connects to a `ws://` URL, runs the opening handshake with `headers` added, then reads on a thread of its
        /// own, calling `onEvent` for each message and once with ``Event/closed(code:reason:)`` at the end.
        ///
        /// - Throws: ``HandshakeRefusal`` when the server answers anything but 101, ``EarshotError`` `network` when
        ///   the server cannot be reached or breaks the handshake, `invalidArgument` for a `wss://` URL (no TLS here).
        static func connect(
            _ url: URL, headers: [String: String] = [:], configuration: Configuration = Configuration(),
            onEvent: @escaping @Sendable (Event) -> Void
        ) async throws -> WebSocketClient {
            guard url.scheme == "ws" else {
                if url.scheme == "wss" {
                    throw EarshotError(
                        .invalidArgument,
                        "wss:// is not supported on Linux: EarshotKit's Linux WebSocket client has no TLS; connect "
                            + "with ws:// (e.g. to a TLS-terminating proxy's plain side) or use an Apple platform")
                }
                throw EarshotError(.invalidArgument, "not a WebSocket URL: \(url.absoluteString)")
            }
            guard let host = url.host else { throw EarshotError(.invalidArgument, "no host in \(url.absoluteString)") }
            let port = url.port ?? 80
            let (socket, leftover) = try await onThread { () throws -> (StreamSocket, [UInt8]) in
                let socket: StreamSocket
                do {
                    socket = try StreamSocket.connect(host: try Self.ipv4Address(of: host), port: port)
                } catch {
                    throw EarshotError(
                        .network, "cannot connect to \(host):\(port): \(error)", underlying: error)
                }
                do {
                    return (socket, try Self.handshake(socket, url: url, host: host, port: port, headers: headers))
                } catch {
                    socket.close()
                    throw error
                }
            }
            let client = WebSocketClient(socket: socket, configuration: configuration)
            let thread = Thread { client.read(leftover, onEvent: onEvent) }
            thread.name = "earshot.kit.websocket.reader"
            thread.start()
            return client
        }

        /// Sends a text message.
        func send(text: String) async throws {
            try await send(opcode: 0x1, payload: Array(text.utf8))
        }

        /// Sends a binary message.
        func send(binary: [UInt8]) async throws {
            try await send(opcode: 0x2, payload: binary)
        }

        /// Sends a close frame with `code` and `reason`, waits up to ``Configuration/closeTimeout`` for the server's
        /// own close frame, and drops the connection. Harmless when already closed.
        func close(code: Int = 1000, reason: String = "") async {
            let first = state.withLock { state -> Bool in
                defer { state.closeSent = true }
                return !state.closeSent && !state.closed
            }
            if first { try? await write(Self.closeFrame(code: code, reason: reason)) }
            let timeout = configuration.closeTimeout
            let signal = closedSignal
            let socket = socket
            try? await Self.onThread {
                if signal.wait(timeout: .now() + timeout) == .success {
                    signal.signal()  // let other waiters through as well
                }
                socket.close()
            }
        }

        /// Drops the TCP connection at once (no closing handshake).
        func abort() {
            socket.close()
        }

        // MARK: Sending

        private func send(opcode: UInt8, payload: [UInt8]) async throws {
            let closing = state.withLock { $0.closeSent || $0.closed }
            if closing { throw EarshotError(.network, "the WebSocket connection is closed") }
            var frames: [UInt8] = []
            var start = 0
            repeat {
                let end = min(payload.count, start + configuration.maxFramePayload)
                let fin = end == payload.count
                frames += Self.frame(
                    opcode: start == 0 ? opcode : 0x0, fin: fin, payload: payload[start..<end])
                start = end
            } while start < payload.count
            try await write(frames)
        }

        private func write(_ bytes: [UInt8]) async throws {
            let socket = socket
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                writer.async {
                    do {
                        try socket.send(bytes)
                        continuation.resume()
                    } catch {
                        continuation.resume(
                            throwing: EarshotError(
                                .network, "sending on the WebSocket failed: \(error)", underlying: error))
                    }
                }
            }
        }

        /// Writes from the reader thread (pongs, the answer to a close), in order with the other writes.
        private func writeSoon(_ bytes: [UInt8]) {
            let socket = socket
            writer.async { try? socket.send(bytes) }
        }

        /// One client frame: masked with a fresh random key (section 5.3).
        static func frame(opcode: UInt8, fin: Bool = true, payload: ArraySlice<UInt8>) -> [UInt8] {
            var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
            bytes.reserveCapacity(payload.count + 14)
            switch payload.count {
            case 0...125:
                bytes.append(0x80 | UInt8(payload.count))
            case 126...0xFFFF:
                bytes += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
            default:
                bytes.append(0x80 | 127)
                for shift in stride(from: 56, through: 0, by: -8) {
                    bytes.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift)))
                }
            }
            var random = SystemRandomNumberGenerator()
            let key = withUnsafeBytes(of: random.next() as UInt32) { Array($0) }
            bytes += key
            for (index, byte) in payload.enumerated() { bytes.append(byte ^ key[index & 3]) }
            return bytes
        }

        static func closeFrame(code: Int?, reason: String) -> [UInt8] {
            guard let code else { return frame(opcode: 0x8, payload: []) }
            var payload = [UInt8(truncatingIfNeeded: code >> 8), UInt8(truncatingIfNeeded: code)]
            payload += Array(reason.utf8.prefix(123))
            return frame(opcode: 0x8, payload: payload[...])
        }

        /// `host` itself when it is an IPv4 address, else the first IPv4 address `getaddrinfo` finds for the name
        /// (``StreamSocket`` connects to addresses only).
        static func ipv4Address(of host: String) throws -> String {
            var probe = in_addr()
            if inet_pton(AF_INET, host, &probe) == 1 { return host }
            var hints = addrinfo()
            hints.ai_family = AF_INET
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, nil, &hints, &list)
            defer { if let list { freeaddrinfo(list) } }
            guard status == 0, let first = list, let address = first.pointee.ai_addr else {
                let reason = status == 0 ? "no IPv4 address" : String(cString: gai_strerror(status))
                throw EarshotError(.network, "cannot resolve \(host): \(reason)")
            }
            var ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            guard inet_ntop(AF_INET, &ipv4, &text, socklen_t(text.count)) != nil else {
                throw EarshotError(.network, "cannot resolve \(host)")
            }
            return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }

        // MARK: Handshake

        private static func handshake(
            _ socket: StreamSocket, url: URL, host: String, port: Int, headers: [String: String]
        ) throws -> [UInt8] {
            var random = SystemRandomNumberGenerator()
            let key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString()
            var target = url.path.isEmpty ? "/" : url.path
            if let query = url.query { target += "?" + query }
            var request =
                "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request += "\(name): \(value)\r\n" }
            request += "\r\n"
            do {
                try socket.send(Array(request.utf8))
            } catch {
                throw EarshotError(.network, "sending the WebSocket handshake failed: \(error.message)")
            }
            // The answer's head, then whatever came after it (the body of a refusal, or the first frames).
            var received: [UInt8] = []
            var headEnd: Int?
            while headEnd == nil {
                let bytes: [UInt8]
                do {
                    bytes = try socket.receive(maximum: 16_384)
                } catch {
                    throw EarshotError(.network, "the WebSocket handshake failed: \(error.message)")
                }
                guard !bytes.isEmpty else {
                    throw EarshotError(.network, "the server closed the connection during the WebSocket handshake")
                }
                received += bytes
                headEnd = find([13, 10, 13, 10], in: received)
                if headEnd == nil, received.count > 65_536 {
                    throw EarshotError(.invalidResponse, "the WebSocket handshake answer's head is over 64 KiB")
                }
            }
            let head = String(decoding: received[..<headEnd!], as: UTF8.self)
            var rest = Array(received[(headEnd! + 4)...])
            var lines = head.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
                throw EarshotError(
                    .invalidResponse, "not an HTTP answer to the WebSocket handshake: \(head.prefix(80))")
            }
            var fields: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)
            }
            guard status == 101 else {
                let length = min(Int(fields["content-length"] ?? "") ?? 0, 65_536)
                while rest.count < length, let more = try? socket.receive(maximum: 16_384), !more.isEmpty {
                    rest += more
                }
                throw HandshakeRefusal(status: status, headers: fields, body: Data(rest.prefix(max(length, 0))))
            }
            let expected = Data(SHA1.hash(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)))
                .base64EncodedString()
            guard fields["upgrade"]?.lowercased() == "websocket",
                fields["connection"]?.lowercased().contains("upgrade") == true,
                fields["sec-websocket-accept"] == expected
            else {
                throw EarshotError(
                    .invalidResponse, "the server's 101 answer is not a valid WebSocket upgrade (RFC 6455 4.1)")
            }
            return rest
        }

        private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
            guard haystack.count >= needle.count else { return nil }
            for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
                if Array(haystack[start..<(start + needle.count)]) == needle { return start }
            }
            return nil
        }

        // MARK: Reading

        /// The reader thread: frames until the connection ends, then one `.closed`.
        private func read(_ leftover: [UInt8], onEvent: @Sendable (Event) -> Void) {
            var buffer = leftover
            var fragments: (opcode: UInt8, payload: [UInt8])?
            var ending: Event?
            reading: while ending == nil {
                do {
                    while let frame = try Self.nextFrame(&buffer, limit: configuration.maxMessageSize) {
                        if let event = try handle(frame, &fragments) {
                            if case .closed = event {
                                ending = event
                                break reading
                            }
                            onEvent(event)
                        }
                    }
                } catch let violation as Violation {
                    let alreadyClosing = state.withLock { state -> Bool in
                        defer { state.closeSent = true }
                        return state.closeSent
                    }
                    if !alreadyClosing { writeSoon(Self.closeFrame(code: violation.code, reason: violation.reason)) }
                    ending = .closed(code: violation.code, reason: violation.reason)
                    break reading
                } catch {
                    ending = .closed(code: 1006, reason: "\(error)")
                    break reading
                }
                let bytes: [UInt8]
                do {
                    bytes = try socket.receive(maximum: 65_536)
                } catch {
                    ending = .closed(code: 1006, reason: "the connection failed: \(error.message)")
                    break
                }
                if bytes.isEmpty {
                    ending = .closed(code: 1006, reason: "the connection ended without a close frame")
                    break
                }
                buffer += bytes
            }
            state.withLock { $0.closed = true }
            onEvent(ending ?? .closed(code: 1006, reason: ""))
            closedSignal.signal()
            // Let a pending close frame (ours, or the answer to the server's) go out before the socket closes.
            let socket = socket
            writer.async { socket.close() }
        }

        private struct Frame {
            var fin: Bool
            var opcode: UInt8
            var payload: [UInt8]
        }

        private struct Violation: Error {
            var code: Int
            var reason: String
        }

        /// Cuts one unmasked server frame off `buffer`, or nil until more bytes arrive.
        private static func nextFrame(_ buffer: inout [UInt8], limit: Int) throws -> Frame? {
            guard buffer.count >= 2 else { return nil }
            let fin = buffer[0] & 0x80 != 0
            let opcode = buffer[0] & 0x0F
            if buffer[0] & 0x70 != 0 { throw Violation(code: 1002, reason: "reserved bits set") }
            guard [0x0, 0x1, 0x2, 0x8, 0x9, 0xA].contains(opcode) else {
                throw Violation(code: 1002, reason: "reserved opcode \(opcode)")
            }
            if buffer[1] & 0x80 != 0 { throw Violation(code: 1002, reason: "server frames must not be masked") }
            var length = UInt64(buffer[1] & 0x7F)
            var header = 2
            if length == 126 {
                guard buffer.count >= 4 else { return nil }
                length = UInt64(buffer[2]) << 8 | UInt64(buffer[3])
                header = 4
            } else if length == 127 {
                guard buffer.count >= 10 else { return nil }
                length = buffer[2..<10].reduce(0) { $0 << 8 | UInt64($1) }
                header = 10
            }
            if opcode & 0x8 != 0, !fin || length > 125 {
                throw Violation(code: 1002, reason: "a control frame must be whole and at most 125 bytes")
            }
            guard length <= UInt64(limit) else {
                throw Violation(code: 1009, reason: "a frame of \(length) bytes is over the limit of \(limit) bytes")
            }
            guard buffer.count >= header + Int(length) else { return nil }
            let payload = Array(buffer[header..<(header + Int(length))])
            buffer.removeFirst(header + Int(length))
            return Frame(fin: fin, opcode: opcode, payload: payload)
        }

        /// What a frame amounts to: a message, a close, or nothing yet (a fragment, a ping answered, a pong).
        private func handle(_ frame: Frame, _ fragments: inout (opcode: UInt8, payload: [UInt8])?) throws -> Event? {
            switch frame.opcode {
            case 0x9:
                writeSoon(Self.frame(opcode: 0xA, payload: frame.payload[...]))
                return nil
            case 0xA:
                return nil
            case 0x8:
                var code = 1005
                var reason = ""
                if frame.payload.count >= 2 {
                    code = Int(frame.payload[0]) << 8 | Int(frame.payload[1])
                    reason = String(decoding: frame.payload.dropFirst(2), as: UTF8.self)
                } else if frame.payload.count == 1 {
                    throw Violation(code: 1002, reason: "a close frame's payload is a 2-byte code and a reason")
                }
                let answer = state.withLock { state -> Bool in
                    defer { state.closeSent = true }
                    return !state.closeSent
                }
                if answer { writeSoon(Self.closeFrame(code: code == 1005 ? nil : code, reason: "")) }
                return .closed(code: code, reason: reason)
            case 0x0:
                guard var partial = fragments else {
                    throw Violation(code: 1002, reason: "a continuation frame without a message to continue")
                }
                guard partial.payload.count + frame.payload.count <= configuration.maxMessageSize else {
                    throw Violation(
                        code: 1009, reason: "a message over the limit of \(configuration.maxMessageSize) bytes")
                }
                partial.payload += frame.payload
                guard frame.fin else {
                    fragments = partial
                    return nil
                }
                fragments = nil
                return .message(try Self.message(partial.opcode, partial.payload))
            default:
                if fragments != nil {
                    throw Violation(code: 1002, reason: "a new message began before the fragmented one ended")
                }
                guard frame.fin else {
                    fragments = (frame.opcode, frame.payload)
                    return nil
                }
                return .message(try Self.message(frame.opcode, frame.payload))
            }
        }

        private static func message(_ opcode: UInt8, _ payload: [UInt8]) throws -> Message {
            guard opcode == 0x1 else { return .binary(payload) }
            guard let text = String(data: Data(payload), encoding: .utf8) else {
                throw Violation(code: 1007, reason: "a text message is not valid UTF-8")
            }
            return .text(text)
        }

        /// Runs blocking `body` on a new thread (never the cooperative pool) and returns its result.
        private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread {
                    do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
                }
                thread.name = "earshot.kit.websocket"
                thread.start()
            }
        }
    }
#endif
