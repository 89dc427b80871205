import Synchronization

/// One accepted WebSocket connection, as a route's session sees it: the messages the client sends, as an async
/// sequence, and ``send(_:)`` for the other way.
///
/// ```swift
/// router.get("/echo") { request, _ in
///     try .webSocket(for: request) { socket in
///         for await message in socket.messages { try await socket.send(message) }
///     }
/// }
/// ```
///
/// The server answers pings, checks every frame (see ``WebSocketFrameParser``), joins fragments, enforces the limits
/// of ``Configuration``, and runs the closing handshake. ``messages`` ends when the client closes, the connection
/// fails or idles out, or the server shuts down (it sends 1001 `goingAway` first); when the session returns, the
/// server closes the connection with 1000 (or 1011 when the session threw) unless it is already closing.
/// Safe to use from several tasks.
public final class WebSocket: Sendable {
    /// Limits and timers of a WebSocket connection.
    public struct Configuration: Sendable {
        /// The largest payload of one frame; a bigger frame closes the connection with 1009 before its payload is
        /// read.
        public var maxFramePayload: Int
        /// The largest message (its fragments together); a bigger one closes the connection with 1009.
        public var maxMessageSize: Int
        /// Bytes of received messages the session has not taken yet; past this the server stops reading the
        /// socket (TCP flow control pushes back on the client) until the session catches up.
        public var maxInboundBuffer: Int
        /// Bytes queued for a client that is not reading fast enough; past this ``WebSocket/send(_:)`` waits.
        public var maxSendQueue: Int
        /// How long the send queue may stay full: a client that reads nothing for this long is closed with 1008
        /// `policyViolation` and the waiting sends throw.
        public var sendStallTimeout: Duration
        /// With nothing received for this long, the server sends a ping.
        public var pingInterval: Duration
        /// With nothing received (not even a pong) for this long, the connection is closed with 1001.
        public var idleTimeout: Duration
        /// How long the server waits for the client's close frame (or for its own to go out) before it drops the
        /// TCP connection.
        public var closeTimeout: Duration

        public init(
            maxFramePayload: Int = 1 << 20, maxMessageSize: Int = 4 << 20, maxInboundBuffer: Int = 8 << 20,
            maxSendQueue: Int = 1 << 20, sendStallTimeout: Duration = .seconds(10),
            pingInterval: Duration = .seconds(20), idleTimeout: Duration = .seconds(60),
            closeTimeout: Duration = .seconds(2)
        ) {
            self.maxFramePayload = maxFramePayload
            self.maxMessageSize = maxMessageSize
            self.maxInboundBuffer = maxInboundBuffer
            self.maxSendQueue = maxSendQueue
            self.sendStallTimeout = sendStallTimeout
            self.pingInterval = pingInterval
            self.idleTimeout = idleTimeout
            self.closeTimeout = closeTimeout
        }
    }

    /// The opening handshake's request (its body is empty).
    public let request: Request
    /// The subprotocol the server chose, if any.
    public let subprotocol: String?
    /// Limits and timers in force.
    public let configuration: Configuration
    let connection: WebSocketConnection

    init(request: Request, subprotocol: String?, connection: WebSocketConnection) {
        self.request = request
        self.subprotocol = subprotocol
        self.configuration = connection.configuration
        self.connection = connection
    }

    /// The client's messages in order. Iterate it once; it ends when the connection is closing or gone.
    public var messages: WebSocketMessages { WebSocketMessages(connection: connection) }

    /// Queues `message` for the client. Waits while ``Configuration/maxSendQueue`` bytes are unsent.
    ///
    /// - Throws: ``HTTPError`` `CLIENT_CLOSED` once the connection is closing or closed (including a client that
    ///   stopped reading for ``Configuration/sendStallTimeout``: it is closed with 1008).
    public func send(_ message: WebSocketMessage) async throws {
        let frame: WebSocketFrame =
            switch message {
            case .text(let text): WebSocketFrame(opcode: .text, payload: Array(text.utf8))
            case .binary(let bytes): WebSocketFrame(opcode: .binary, payload: bytes)
            }
        try await connection.send(frame.encoded())
    }

    /// Queues a text message.
    public func send(text: String) async throws {
        try await send(.text(text))
    }

    /// Starts the closing handshake with `code` and `reason` (at most 123 bytes of UTF-8 are sent). The connection
    /// ends once the client answers or ``Configuration/closeTimeout`` passes; ``messages`` ends at once. Closing
    /// twice keeps the first code.
    public func close(_ code: WebSocketCloseCode = .normal, reason: String = "") {
        connection.close(code, reason: reason)
    }

    /// The close code the connection ended with, or will end with once closing (nil while open): the client's code
    /// when it closed first (1005 when its close frame had none, 1006 when it vanished without one), else the
    /// server's.
    public var closeCode: WebSocketCloseCode? { connection.closeCode }
}

/// The messages of a ``WebSocket``: an `AsyncSequence` that ends (returns nil) when the connection is closing.
public struct WebSocketMessages: AsyncSequence, Sendable {
    public typealias Element = WebSocketMessage
    let connection: WebSocketConnection

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<WebSocketMessage>.Iterator
        let connection: WebSocketConnection

        public mutating func next() async -> WebSocketMessage? {
            guard let message = await base.next() else { return nil }
            connection.consumed(message.byteCount)
            return message
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: connection.inbound.makeAsyncIterator(), connection: connection)
    }
}
