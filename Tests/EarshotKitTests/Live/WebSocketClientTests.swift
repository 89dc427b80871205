#if !canImport(Darwin)
    import EarshotTestSupport
    import Foundation
    import Testing

    @testable import EarshotKit

    /// EarshotKit's Linux WebSocket client against an independent peer: a Python `websockets` server (the test venv's,
    /// pinned in scripts/setup), which refuses unmasked client frames and checks every frame it gets. Echo of text and
    /// binary, a large message the client fragments, a fragmented message from the server, ping → pong, close codes
    /// both ways, an oversize message (1009), a refused upgrade (401 with its body) and `wss://` (no TLS here).
    @Suite struct WebSocketClientTests {
        static let python = TestEnvironment.home.appendingPathComponent("venv/bin/python")
        static var ready: Bool { FileManager.default.isExecutableFile(atPath: python.path) }

        static let server = #"""
            import asyncio, sys
            from http import HTTPStatus
            from websockets.asyncio.server import serve
            from websockets.exceptions import ConnectionClosed

            def report(*words):
                print("result", *words, flush=True)

            async def handler(ws):
                path = ws.request.path
                try:
                    if path == "/echo":
                        async for message in ws:
                            await ws.send(message)
                    elif path == "/fragments":
                        await ws.send(["one ", "two ", "three"])
                        await ws.send([b"\x01\x02", b"\x03"])
                        await ws.wait_closed()
                    elif path == "/ping":
                        waiter = await ws.ping(b"are you there")
                        await asyncio.wait_for(waiter, 10)
                        await ws.send("pong received")
                        await ws.wait_closed()
                    elif path == "/close":
                        await ws.close(4001, "bye")
                    elif path == "/client-close":
                        async for message in ws:
                            pass
                    elif path == "/big":
                        await ws.send("x" * (2 << 20))
                        await ws.wait_closed()
                    elif path == "/bad-utf8":
                        await ws.send(b"\xff\xfe", text=True)
                        await ws.wait_closed()
                except ConnectionClosed:
                    pass
                rcvd = ws.protocol.close_rcvd
                report(path, rcvd.code if rcvd else "none", rcvd.reason if rcvd else "")

            def refuse(connection, request):
                if request.path == "/denied":
                    return connection.respond(HTTPStatus.UNAUTHORIZED, '{"error": "no entry"}\n')

            async def main():
                async with serve(handler, "127.0.0.1", 0, max_size=None, process_request=refuse) as server:
                    print("port", server.sockets[0].getsockname()[1], flush=True)
                    await asyncio.sleep(600)

            asyncio.run(main())
            """#

        /// The Python server and a connection to one of its paths, with the client's events as a stream.
        struct Peer {
            let process: ChildProcess
            let port: Int

            static func start() async throws -> Peer {
                let process = try Program(WebSocketClientTests.python).start(["-c", WebSocketClientTests.server])
                let line = try await process.waitForLine(containing: "port ", on: .stdout, timeout: .seconds(60))
                let port = try #require(Int(line.split(separator: " ").last ?? ""), "\(line)")
                return Peer(process: process, port: port)
            }

            func connect(_ path: String, maxMessageSize: Int = 16 << 20) async throws -> (
                WebSocketClient, AsyncStream<WebSocketClient.Event>
            ) {
                let (events, continuation) = AsyncStream.makeStream(of: WebSocketClient.Event.self)
                var configuration = WebSocketClient.Configuration()
                configuration.maxMessageSize = maxMessageSize
                let client = try await WebSocketClient.connect(
                    URL(string: "ws://localhost:\(port)\(path)")!, configuration: configuration
                ) { event in
                    continuation.yield(event)
                    if case .closed = event { continuation.finish() }
                }
                return (client, events)
            }

            /// The server's report for `path`: the close code and reason it received.
            func report(_ path: String) async throws -> String {
                try await process.waitForLine(containing: "result \(path) ", on: .stdout, timeout: .seconds(30))
            }
        }

        static func all(_ events: AsyncStream<WebSocketClient.Event>) async -> [WebSocketClient.Event] {
            var collected: [WebSocketClient.Event] = []
            for await event in events { collected.append(event) }
            return collected
        }

        @Test(.enabled(if: ready, "needs the test venv: run scripts/setup"))
        func echoesTextBinaryAndAMessageItFragmentsThenClosesNormally() async throws {
            let peer = try await Peer.start()
            defer { _ = peer.process.stop() }
            let (client, events) = try await peer.connect("/echo")
            var iterator = events.makeAsyncIterator()
            try await client.send(text: "hello, élan ✓")
            #expect(await iterator.next() == .message(.text("hello, élan ✓")))
            try await client.send(binary: [0, 1, 2, 255])
            #expect(await iterator.next() == .message(.binary([0, 1, 2, 255])))
            // 3 MiB goes out as four frames of at most 1 MiB; the server sees one message.
            let large = String(repeating: "abcdefgh", count: 3 << 17)
            try await client.send(text: large)
            #expect(await iterator.next() == .message(.text(large)))
            await client.close(code: 1000, reason: "done")
            guard case .closed(let code, _) = await iterator.next() else {
                Issue.record("no close after the client's close")
                return
            }
            #expect(code == 1000)
            #expect(try await peer.report("/echo").hasSuffix("/echo 1000 done"))
            await #expect(throws: EarshotError.self) { try await client.send(text: "after the close") }
        }

        @Test(.enabled(if: ready, "needs the test venv: run scripts/setup"))
        func joinsFragmentsAnswersPingsAndReportsTheServersCloseCode() async throws {
            let peer = try await Peer.start()
            defer { _ = peer.process.stop() }

            let (fragmented, fragments) = try await peer.connect("/fragments")
            var iterator = fragments.makeAsyncIterator()
            #expect(await iterator.next() == .message(.text("one two three")))
            #expect(await iterator.next() == .message(.binary([1, 2, 3])))
            await fragmented.close(code: 1000, reason: "")

            let (pinged, pings) = try await peer.connect("/ping")
            var pingIterator = pings.makeAsyncIterator()
            #expect(await pingIterator.next() == .message(.text("pong received")))
            await pinged.close(code: 4000, reason: "app says bye")
            #expect(try await peer.report("/ping").hasSuffix("/ping 4000 app says bye"))

            let (_, closing) = try await peer.connect("/close")
            #expect(await Self.all(closing) == [.closed(code: 4001, reason: "bye")])
        }

        @Test(.enabled(if: ready, "needs the test venv: run scripts/setup"))
        func oversizeAndInvalidMessagesCloseWithTheirCodes() async throws {
            let peer = try await Peer.start()
            defer { _ = peer.process.stop() }
            let (_, big) = try await peer.connect("/big", maxMessageSize: 1 << 20)
            let events = await Self.all(big)
            #expect(events.count == 1)
            guard case .closed(let code, let reason) = events.first else {
                Issue.record("\(events)")
                return
            }
            #expect(code == 1009 && reason.contains("limit"), "\(reason)")
            #expect(try await peer.report("/big").contains("/big 1009 "))

            let (_, bad) = try await peer.connect("/bad-utf8")
            guard case .closed(let badCode, _) = await Self.all(bad).last else {
                Issue.record("no close")
                return
            }
            #expect(badCode == 1007)
            #expect(try await peer.report("/bad-utf8").contains("/bad-utf8 1007 "))
        }

        @Test(.enabled(if: ready, "needs the test venv: run scripts/setup"))
        func aRefusedUpgradeAndWSSAreClearErrors() async throws {
            let peer = try await Peer.start()
            defer { _ = peer.process.stop() }
            let refusal = await #expect(throws: WebSocketClient.HandshakeRefusal.self) {
                _ = try await peer.connect("/denied")
            }
            #expect(refusal?.status == 401)
            let body = String(decoding: refusal?.body ?? Data(), as: UTF8.self)
            #expect(body.contains("no entry"), "\(body)")

            let tls = await #expect(throws: EarshotError.self) {
                _ = try await WebSocketClient.connect(URL(string: "wss://127.0.0.1:\(peer.port)/echo")!) { _ in }
            }
            #expect(tls?.code == .invalidArgument && tls?.message.contains("no TLS") == true)
            let nobody = await #expect(throws: EarshotError.self) {
                _ = try await WebSocketClient.connect(URL(string: "ws://127.0.0.1:1/")!) { _ in }
            }
            #expect(nobody?.code == .network)
        }

        @Test func sha1MatchesTheRFCExamples() {
            func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
            #expect(hex(SHA1.hash(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
            #expect(hex(SHA1.hash([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
            // RFC 6455 section 1.3's handshake example.
            let accept = Data(SHA1.hash(Array("dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11".utf8)))
            #expect(accept.base64EncodedString() == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        }
    }
#endif
