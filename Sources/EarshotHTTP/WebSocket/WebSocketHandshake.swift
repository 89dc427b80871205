import EarshotCrypto
import Foundation

/// The server's side of the opening handshake (RFC 6455 section 4.2).
enum WebSocketHandshake {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key`: base64(SHA-1(key + GUID)).
    static func accept(key: String) -> String {
        Data(DigestAlgorithm.sha1.hash(Array((key + guid).utf8)).bytes).base64EncodedString()
    }

    /// The subprotocols the client offers (`Sec-WebSocket-Protocol`, comma-separated, in its order of preference).
    static func offeredSubprotocols(_ headers: HTTPHeaders) -> [String] {
        headers.values(for: "Sec-WebSocket-Protocol").flatMap { $0.split(separator: ",") }
            .map { String($0).trimmingASCIISpaces() }.filter { !$0.isEmpty }
    }

    /// Checks that `request` is a WebSocket opening handshake and returns the headers of the 101 answer.
    ///
    /// - Throws: ``HTTPError`` 400 `BAD_REQUEST` for a request that is not an upgrade to WebSocket or whose key is
    ///   malformed, 405 for a method other than GET, 426 `UPGRADE_REQUIRED` (with `Sec-WebSocket-Version: 13`) for
    ///   another protocol version.
    static func answer(_ request: Request, subprotocol: String?) throws(HTTPError) -> HTTPHeaders {
        guard request.method == .get else {
            throw .methodNotAllowed(request.method, path: request.path, allowed: [.get])
        }
        let headers = request.headers
        func tokens(_ name: String) -> [String] {
            headers.values(for: name).flatMap { $0.split(separator: ",") }.map {
                String($0).trimmingASCIISpaces().lowercased()
            }
        }
        guard tokens("Upgrade").contains("websocket"), tokens("Connection").contains("upgrade") else {
            var error = HTTPError(
                HTTPStatus(code: 426), code: "UPGRADE_REQUIRED",
                message: "this path speaks WebSocket: send GET with `Upgrade: websocket` and `Connection: Upgrade`")
            error.headers["Upgrade"] = "websocket"
            error.headers["Sec-WebSocket-Version"] = "13"
            throw error
        }
        guard headers["Sec-WebSocket-Version"]?.trimmingASCIISpaces() == "13" else {
            var error = HTTPError(
                HTTPStatus(code: 426), code: "UPGRADE_REQUIRED",
                message: "only WebSocket version 13 (RFC 6455) is spoken; send `Sec-WebSocket-Version: 13`")
            error.headers["Sec-WebSocket-Version"] = "13"
            throw error
        }
        guard let key = headers["Sec-WebSocket-Key"]?.trimmingASCIISpaces(),
            let nonce = Data(base64Encoded: key), nonce.count == 16
        else {
            throw .invalidArgument("`Sec-WebSocket-Key` must be 16 random bytes in base64 (RFC 6455 section 4.1)")
        }
        var answer: HTTPHeaders = [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": accept(key: key),
        ]
        if let subprotocol { answer["Sec-WebSocket-Protocol"] = subprotocol }
        return answer
    }
}
