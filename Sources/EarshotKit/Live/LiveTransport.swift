import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a ``LiveTransport`` reports, in order, from a thread of its own.
enum LiveTransportEvent: Sendable {
    case text(String)
    /// The connection ended (always the last report); `failure` when it never opened or broke.
    case closed(code: Int, reason: String, failure: EarshotError?)
}

/// The WebSocket under a ``LiveSession``: `URLSessionWebSocketTask` on Apple platforms, ``WebSocketClient`` on Linux
/// (whose Foundation cannot open WebSockets).
protocol LiveTransport: Sendable {
    func send(text: String) async throws
    /// Closes with `code`, waiting a little for the server's close frame.
    func close(code: Int, reason: String) async
    /// Drops the connection at once (no closing handshake).
    func abort()
}

enum LiveTransports {
    /// Opens `url` (`ws://` or `wss://`) with `headers`; `onEvent` gets every message and then one `.closed`.
    ///
    /// - Throws: ``EarshotError``: the server's refusal of the upgrade (its code and message, e.g. `UNAUTHORIZED`
    ///   with HTTP 401), `network` when it cannot be reached. On Apple platforms a refusal arrives as `.closed` with
    ///   its `failure` instead (the task reports it on the first receive).
    static func open(
        _ url: URL, headers: [String: String], maxMessageSize: Int, session: URLSession,
        onEvent: @escaping @Sendable (LiveTransportEvent) -> Void
    ) async throws -> any LiveTransport {
        #if canImport(Darwin)
            return URLSessionLiveTransport(
                url, headers: headers, maxMessageSize: maxMessageSize, session: session, onEvent: onEvent)
        #else
            var configuration = WebSocketClient.Configuration()
            configuration.maxMessageSize = maxMessageSize
            do {
                let client = try await WebSocketClient.connect(url, headers: headers, configuration: configuration) {
                    event in
                    switch event {
                    case .message(.text(let text)): onEvent(.text(text))
                    case .message(.binary): break  // the realtime protocol is JSON text; binary is not part of it
                    case .closed(let code, let reason): onEvent(.closed(code: code, reason: reason, failure: nil))
                    }
                }
                return LinuxLiveTransport(client: client)
            } catch let refusal as WebSocketClient.HandshakeRefusal {
                let response = HTTPURLResponse(
                    url: url, statusCode: refusal.status, httpVersion: "HTTP/1.1", headerFields: refusal.headers)!
                throw EarshotClient.error(from: response, data: refusal.body)
            }
        #endif
    }
}

#if !canImport(Darwin)
    struct LinuxLiveTransport: LiveTransport {
        let client: WebSocketClient

        func send(text: String) async throws {
            try await client.send(text: text)
        }

        func close(code: Int, reason: String) async {
            await client.close(code: code, reason: reason)
        }

        func abort() {
            client.abort()
        }
    }
#endif

// Compiled on Linux too (swift-corelibs-foundation has `URLSessionWebSocketTask`), so every Linux build type-checks
// the Apple path; it is chosen only on Apple platforms, since Debian's libcurl has no WebSocket support to run it.
#if canImport(Darwin) || canImport(FoundationNetworking)
    /// `URLSessionWebSocketTask` (iOS 13 / macOS 10.15) as a ``LiveTransport``.
    final class URLSessionLiveTransport: LiveTransport, @unchecked Sendable {
        // SAFETY: `task` is thread-safe (URLSession's own locking); `onEvent` is Sendable; `ended` is a Locked.
        private let task: URLSessionWebSocketTask
        private let onEvent: @Sendable (LiveTransportEvent) -> Void
        private let ended = Locked(false)

        init(
            _ url: URL, headers: [String: String], maxMessageSize: Int, session: URLSession,
            onEvent: @escaping @Sendable (LiveTransportEvent) -> Void
        ) {
            var request = URLRequest(url: url)
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            task = session.webSocketTask(with: request)
            task.maximumMessageSize = maxMessageSize
            self.onEvent = onEvent
            task.resume()
            receiveNext()
        }

        private func receiveNext() {
            task.receive { [self] result in
                switch result {
                case .success(.string(let text)):
                    onEvent(.text(text))
                    receiveNext()
                case .success:
                    receiveNext()  // binary is not part of the realtime protocol
                case .failure(let error):
                    finish(error)
                }
            }
        }

        private func finish(_ error: any Error) {
            let first = ended.withLock { ended -> Bool in
                defer { ended = true }
                return !ended
            }
            guard first else { return }
            var failure: EarshotError?
            if let http = task.response as? HTTPURLResponse, http.statusCode != 101 {
                failure = EarshotError(
                    .init(status: http.statusCode), "the server refused the live session: HTTP \(http.statusCode)",
                    status: http.statusCode, requestID: http.value(forHTTPHeaderField: "X-Request-Id"))
            }
            let code = task.closeCode == .invalid ? 1006 : task.closeCode.rawValue
            let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? error.localizedDescription
            if failure == nil, code == 1006, task.response == nil {
                failure = EarshotError(
                    .network, "cannot open the live session: \(error.localizedDescription)", underlying: error)
            }
            onEvent(.closed(code: code, reason: reason, failure: failure))
        }

        func send(text: String) async throws {
            do {
                try await task.send(.string(text))
            } catch {
                throw EarshotError(.network, "sending on the live session failed: \(error.localizedDescription)")
            }
        }

        func close(code: Int, reason: String) async {
            let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: code) ?? .normalClosure
            task.cancel(with: closeCode, reason: Data(reason.utf8))
        }

        func abort() {
            task.cancel()
        }
    }
#endif
