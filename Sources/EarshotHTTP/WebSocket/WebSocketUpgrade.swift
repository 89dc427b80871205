internal import CMicroHTTPD
import EarshotCore
import Synchronization

/// A route's answer that switches the connection to WebSocket: the 101 headers are sent, libmicrohttpd hands over
/// the socket (``upgradeHandler``), and the session runs in the handler's task with a ``WebSocket``.
public struct WebSocketUpgrade: Sendable {
    let session: @Sendable (WebSocket) async throws -> Void
    let subprotocol: String?
    let configuration: WebSocket.Configuration
    let handoff = Handoff()

    /// Where libmicrohttpd's upgrade callback (a worker thread) meets the handler's task.
    final class Handoff: Sendable {
        typealias Upgraded = (socket: WebSocket.Socket, initial: [UInt8])
        private enum Phase {
            case waiting(CheckedContinuation<Upgraded?, Never>?)
            case ready(Upgraded)
            case over
        }
        private let phase = Mutex(Phase.waiting(nil))

        /// The upgraded socket and the bytes libmicrohttpd read past the head, or nil when the connection ended
        /// before the 101 went out.
        func upgraded() async -> Upgraded? {
            await withCheckedContinuation { (continuation: CheckedContinuation<Upgraded?, Never>) in
                let now: Upgraded?? = phase.withLock { phase in
                    switch phase {
                    case .ready(let upgraded):
                        phase = .over
                        return .some(upgraded)
                    case .over: return .some(nil)
                    case .waiting:
                        phase = .waiting(continuation)
                        return nil
                    }
                }
                if let now { continuation.resume(returning: now) }
            }
        }

        /// libmicrohttpd sent the 101 and hands over the socket.
        func deliver(_ upgraded: Upgraded) {
            let (waiter, refused): (CheckedContinuation<Upgraded?, Never>?, Bool) = phase.withLock { phase in
                guard case .waiting(let waiter) = phase else { return (nil, true) }
                phase = waiter == nil ? .ready(upgraded) : .over
                return (waiter, false)
            }
            // Nobody will ever serve it: give it back.
            if refused { _ = earshot_mhd_upgrade_close(upgraded.socket.handle) }
            waiter?.resume(returning: upgraded)
        }

        /// The connection ended before the upgrade.
        func abandon() {
            let waiter: CheckedContinuation<Upgraded?, Never>? = phase.withLock { phase in
                guard case .waiting(let waiter) = phase else { return nil }
                phase = .over
                return waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// libmicrohttpd's upgrade callback; `cls` is a retained ``Handoff`` (released here).
    static let upgradeHandler: MHD_UpgradeHandler = { cls, _, _, extraIn, extraSize, sock, urh in
        guard let cls else { return }
        let handoff = Unmanaged<Handoff>.fromOpaque(cls).takeRetainedValue()
        guard let urh else { return }
        var initial: [UInt8] = []
        if let extraIn, extraSize > 0 {
            initial = Array(UnsafeRawBufferPointer(start: extraIn, count: extraSize))
        }
        handoff.deliver((WebSocket.Socket(descriptor: sock, handle: urh), initial))
    }
}

extension WebSocket {
    typealias Socket = WebSocketConnection.Socket
}

extension Response {
    /// Accepts `request` as a WebSocket opening handshake (RFC 6455 section 4.2): the server answers 101 and then runs
    /// `session` with the connection, in the handler's task, until it returns.
    ///
    /// Choose `subprotocol` among ``Request/webSocketSubprotocols`` (the client's offer); nil answers without one.
    /// Authenticate and refuse (throw) before calling this: a refusal is an ordinary HTTP error response.
    ///
    /// - Throws: ``HTTPError`` 426 `UPGRADE_REQUIRED` for a request that is not a version-13 upgrade to WebSocket,
    ///   400 for a malformed `Sec-WebSocket-Key` or a subprotocol the client did not offer, 405 for a method other
    ///   than GET.
    public static func webSocket(
        for request: Request, subprotocol: String? = nil, configuration: WebSocket.Configuration = .init(),
        _ session: @escaping @Sendable (WebSocket) async throws -> Void
    ) throws(HTTPError) -> Response {
        if let subprotocol, !request.webSocketSubprotocols.contains(subprotocol) {
            throw .invalidArgument("the client did not offer the subprotocol `\(subprotocol)`")
        }
        let headers = try WebSocketHandshake.answer(request, subprotocol: subprotocol)
        return Response(
            status: HTTPStatus(code: 101), headers: headers,
            body: .webSocket(WebSocketUpgrade(session: session, subprotocol: subprotocol, configuration: configuration)))
    }
}

extension Request {
    /// The subprotocols a WebSocket client offers in `Sec-WebSocket-Protocol`, in its order of preference.
    public var webSocketSubprotocols: [String] { WebSocketHandshake.offeredSubprotocols(headers) }

    /// Whether this request asks to switch to WebSocket (`Upgrade: websocket`).
    public var isWebSocketUpgrade: Bool {
        headers.values(for: "Upgrade").contains { $0.lowercased().contains("websocket") }
    }
}
