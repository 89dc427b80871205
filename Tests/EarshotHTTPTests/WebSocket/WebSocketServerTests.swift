import EarshotHTTP
import EarshotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// WebSocket over the real server: the opening handshake, malformed frames from a raw socket (each closed with its
/// RFC 6455 code while other clients keep being served), a client that stops reading, idle timeout and shutdown.
@Suite(.timeLimit(.minutes(2)))
struct WebSocketServerTests {
    @Test func handshakeAnswersTheRFCAcceptKeyAndEchoes() async throws {
        try await withServer(WebSocketRoutes.router()) { port in
            try await offThread {
                let socket = try RawWebSocket(port: port)
                #expect(socket.status == 101)
                #expect(socket.head.lowercased().contains("upgrade: websocket"))
                // RFC 6455 section 1.3's example key and answer.
                #expect(socket.head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
                try socket.send(WebSocketFrame(opcode: .text, payload: Array("hi".utf8)))
                #expect(try socket.next() == WebSocketFrame(opcode: .text, payload: Array("hi".utf8)))
                try socket.send(WebSocketFrame(opcode: .ping, payload: [1, 2, 3]))
                #expect(try socket.next() == WebSocketFrame(opcode: .pong, payload: [1, 2, 3]))
                try socket.send(WebSocketFrame.close(.normal, reason: "done"))
                #expect(try socket.closeCode() == .normal)
                #expect(socket.serverClosedTCP())
            }
        }
    }

    @Test func plainGETAndWrongVersionAreRefusedWithHTTPErrors() async throws {
        try await withServer(WebSocketRoutes.router()) { port in
            let plain = try await raw(port, "GET", "/echo")
            #expect(plain.status == 426)
            #expect(plain.text.contains("UPGRADE_REQUIRED"))
            let version = try await raw(
                port, "GET", "/echo",
                headers: [
                    ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                    ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "8"),
                ])
            #expect(version.status == 426)
            #expect(version.headers["Sec-WebSocket-Version"] == "13")
            let guarded = try await offThread { try RawWebSocket(port: port, path: "/guarded").status }
            #expect(guarded == 401)
            let welcome = try await offThread {
                let socket = try RawWebSocket(port: port, path: "/guarded", extraHeaders: "Authorization: Bearer letmein\r\n")
                return try socket.next()
            }
            #expect(welcome == WebSocketFrame(opcode: .text, payload: Array("welcome".utf8)))
        }
    }

    @Test func malformedFramesAreClosedWithTheirCodesAndOthersKeepBeingServed() async throws {
        try await withServer(WebSocketRoutes.router()) { port in
            try await offThread {
                // A well-behaved client is served after each bad one (which also keeps it from the 3 s idle timeout
                // however slowly a loaded machine runs the steps).
                let bystander = try RawWebSocket(port: port)
                func stillServed(sourceLocation: SourceLocation = #_sourceLocation) throws {
                    try bystander.send(WebSocketFrame(opcode: .binary, payload: [7, 7]))
                    #expect(
                        try bystander.next() == WebSocketFrame(opcode: .binary, payload: [7, 7]),
                        sourceLocation: sourceLocation)
                }
                // An unmasked client frame: 1002.
                let unmasked = try RawWebSocket(port: port)
                try unmasked.send(WebSocketFrame(opcode: .text, payload: Array("hi".utf8)), masked: false)
                #expect(try unmasked.closeCode() == .protocolError)
                #expect(unmasked.serverClosedTCP())
                try stillServed()
                // A frame over the 256 KiB frame limit, refused from its header: 1009.
                let oversize = try RawWebSocket(port: port)
                try oversize.connection.send([0x82, 0xFF, 0, 0, 0, 0, 0, 0x10, 0, 0, 1, 2, 3, 4])
                #expect(try oversize.closeCode() == .messageTooBig)
                try stillServed()
                // A message over the 512 KiB message limit in frames under the frame limit: 1009.
                let longMessage = try RawWebSocket(port: port)
                let part = [UInt8](repeating: 0x41, count: 200 << 10)
                try longMessage.send(WebSocketFrame(fin: false, opcode: .binary, payload: part))
                try longMessage.send(WebSocketFrame(fin: false, opcode: .continuation, payload: part))
                try longMessage.send(WebSocketFrame(fin: true, opcode: .continuation, payload: part))
                #expect(try longMessage.closeCode() == .messageTooBig)
                try stillServed()
                // Invalid UTF-8 in a text message: 1007.
                let invalid = try RawWebSocket(port: port)
                try invalid.send(WebSocketFrame(opcode: .text, payload: [0x68, 0xC3, 0x28]))
                #expect(try invalid.closeCode() == .invalidPayload)
                try stillServed()
                // Abrupt close in the middle of a frame: the server just drops it.
                let abrupt = try RawWebSocket(port: port)
                try abrupt.connection.send(Array(WebSocketFrame(opcode: .binary, payload: part).encoded(
                    maskingKey: [9, 9, 9, 9]).prefix(1000)))
                shutdown(abrupt.connection.fd, Int32(SHUT_RDWR))
                try stillServed()
                let fresh = try RawWebSocket(port: port)
                try fresh.send(WebSocketFrame(opcode: .text, payload: Array("still here".utf8)))
                #expect(try fresh.next()?.payload == Array("still here".utf8))
            }
        }
    }

    @Test func aClientThatStopsReadingIsClosedAndServerMemoryStaysBounded() async throws {
        let observations = WebSocketRoutes.Observations()
        let metrics = HTTPMetrics()
        try await withServer(WebSocketRoutes.router(observations), metrics: metrics) { port in
            let socket = try await offThread { () -> RawWebSocket in
                let socket = try RawWebSocket(port: port, path: "/flood")
                // A small receive buffer: the kernel cannot soak up the flood for us.
                var size: Int32 = 4096
                setsockopt(socket.connection.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                return socket
            }
            // Read nothing for a while: the server's sends must stop and fail, not pile up.
            let deadline = ContinuousClock.now + .seconds(10)
            while !observations.snapshot.sendFailed, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(observations.snapshot.sendFailed)
            #expect(observations.snapshot.closeCode == .policyViolation)
            withExtendedLifetime(socket) {}
        }
    }

    @Test func idleClientsAreClosedAndShutdownSendsGoingAway() async throws {
        let observations = WebSocketRoutes.Observations()
        let server = HTTPServer(router: WebSocketRoutes.router(observations), configuration: .test())
        _ = TestLog.path
        let running = Task { try await server.run() }
        let port = try await server.waitUntilListening()
        // A client that answers nothing (not even pings) is closed with 1001 after the 3 s idle timeout.
        let idle = try await offThread { () -> (WebSocketCloseCode?, [WebSocketFrame.Opcode]) in
            let socket = try RawWebSocket(port: port)
            var seen: [WebSocketFrame.Opcode] = []
            while let frame = try socket.next(answeringPings: false) {
                seen.append(frame.opcode)
                if frame.opcode == .close {
                    return (WebSocketCloseCode(rawValue: UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])), seen)
                }
            }
            return (nil, seen)
        }
        #expect(idle.0 == .goingAway)
        #expect(idle.1.contains(.ping))
        // An open connection at shutdown gets 1001, and the server stops promptly.
        let open = try await offThread { try RawWebSocket(port: port) }
        let started = ContinuousClock.now
        running.cancel()
        let code = try await offThread { try open.closeCode() }
        #expect(code == .goingAway)
        try await running.value
        #expect(ContinuousClock.now - started < .seconds(4))
    }

    // MARK: - An independent client: Python `websockets`

    static let python = TestEnvironment.home.appendingPathComponent("venv/bin/python")

    /// Drives the server with the `websockets` package (pinned in scripts/setup) and prints what it saw as JSON.
    static let client = #"""
        import json, sys
        from websockets.sync.client import connect
        from websockets.exceptions import ConnectionClosed
        port = sys.argv[1]
        out = {}
        with connect(f"ws://127.0.0.1:{port}/echo", subprotocols=["earshot.test"], max_size=None) as ws:
            out["subprotocol"] = ws.subprotocol
            ws.send("héllo ✓")
            out["text"] = ws.recv()
            ws.send(b"\x00\x01\xff")
            out["binary"] = list(ws.recv())
            ws.send(["frag", "men", "ted ✓"])
            out["fragmented"] = ws.recv()
            big = bytes(range(256)) * 1000
            ws.send(big)
            out["big"] = ws.recv() == big
            out["pong"] = ws.ping(b"abc").wait(5)
            ws.close(code=1000, reason="bye")
            out["close"] = ws.close_code
        try:
            with connect(f"ws://127.0.0.1:{port}/echo", max_size=None) as ws:
                ws.send(b"x" * (600 * 1024))
                ws.recv()
        except ConnectionClosed as error:
            out["too_big"] = error.rcvd.code if error.rcvd else None
        with connect(f"ws://127.0.0.1:{port}/echo") as ws:
            ws.send("after")
            out["after"] = ws.recv()
        print(json.dumps(out))
        """#

    @Test func thePythonWebsocketsClientTalksToTheServer() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
            Issue.record("no \(Self.python.path): run scripts/setup (it installs websockets into the venv)")
            return
        }
        try await withServer(WebSocketRoutes.router()) { port in
            let result = try await Program(Self.python).run(["-c", Self.client, String(port)], timeout: .seconds(60))
            try #require(result.status == 0, "websockets missing? run scripts/setup: \(result)")
            let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(out["subprotocol"] as? String == "earshot.test")
            #expect(out["text"] as? String == "héllo ✓")
            #expect(out["binary"] as? [Int] == [0, 1, 255])
            #expect(out["fragmented"] as? String == "fragmented ✓")
            #expect(out["big"] as? Bool == true)
            #expect(out["pong"] as? Bool == true)
            #expect(out["close"] as? Int == 1000)
            #expect(out["too_big"] as? Int == 1009)
            #expect(out["after"] as? String == "after")
        }
    }
}
