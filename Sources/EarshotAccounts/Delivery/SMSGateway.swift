internal import EarshotCore
public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Sends SMS through a generic HTTP provider: `POST <url>` with the JSON body `{"to": "+1…", "from": "…",
/// "body": "…"}` and, when configured, `Authorization: Bearer <token>`.
///
/// Most providers (or a small relay in front of one) accept this shape. A 2xx answer is delivered; 408, 429 and
/// 5xx or a transport failure are ``AccountError/Code/unavailable`` (retry); any other 4xx is
/// ``AccountError/Code/invalidArgument`` (the provider refused the message).
public struct SMSGateway: MessageSender {
    /// Where the provider is and how to authenticate to it.
    public struct Configuration: Sendable, Hashable {
        /// The provider's endpoint.
        public var url: URL
        /// Sent as a bearer token, if set.
        public var token: String?
        /// The sender id or number (`from`), if the provider needs one.
        public var from: String?
        /// The longest one request may take.
        public var timeout: Duration = .seconds(15)

        /// A provider at `url`.
        public init(url: URL, token: String? = nil, from: String? = nil, timeout: Duration = .seconds(15)) {
            self.url = url
            self.token = token
            self.from = from
            self.timeout = timeout
        }
    }

    /// Where the provider is.
    public let configuration: Configuration
    let session: URLSession

    /// A gateway client using `session` (an ephemeral one by default).
    public init(configuration: Configuration, session: URLSession = URLSession(configuration: .ephemeral)) {
        self.configuration = configuration
        self.session = session
    }

    /// POSTs the message; see the type for what each answer means.
    public func send(_ message: OutboundMessage) async throws {
        var request = URLRequest(url: configuration.url)
        request.httpMethod = "POST"
        request.timeoutInterval = Double(configuration.timeout.components.seconds)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token = configuration.token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        var body = ["to": message.destination, "body": message.body]
        if let from = configuration.from { body["from"] = from }
        request.httpBody = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        // Not `session.data(for:)`: cancelling it while FoundationNetworking completes it deadlocks.
        let (data, response) = try await DeadlineExchange.send(
            request, session: session, timeout: configuration.timeout
        ) { [url = configuration.url.absoluteString] failure in
            AccountError(.unavailable, "SMS gateway \(url) failed: \(failure)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard !(200..<300).contains(status) else { return }
        let text =
            "SMS gateway \(configuration.url.absoluteString) answered HTTP \(status): "
            + String(decoding: data.prefix(300), as: UTF8.self)
        if (400..<500).contains(status) && status != 408 && status != 429 {
            throw AccountError(.invalidArgument, text)
        }
        throw AccountError(.unavailable, text)
    }
}
