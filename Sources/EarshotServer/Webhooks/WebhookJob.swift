import EarshotAPI
import EarshotCore
import EarshotStore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `webhook` job kind: sends one delivery (the job's id is the delivery's) as a signed POST, logs every attempt
/// in `webhook_attempts`, and retries a non-2xx answer or a timeout with the policy's backoff until the
/// delivery's retry period is over. Delivery is at-least-once (a process killed mid-attempt sends again once the
/// lease expires): receivers dedupe on `Earshot-Delivery`.
///
/// Before each attempt the callback host is resolved and every address checked against the ``CallbackPolicy``
/// (no loopback, private, link-local or reserved address unless allowed); a plain `http` URL is then sent to the
/// checked address itself (with the original `Host`), so a DNS answer that changes between check and connection
/// cannot redirect it. Redirects are not followed (a 3xx is a failed attempt). The delivery log partners read
/// says what happened in generic words (``noResponse``, `HTTP 503`, a refused host); what the connection
/// reported goes to the server log only, so the log cannot be used to scan the server's network.
///
/// Its policy limits the jobs one tenant and one callback host (the job's partition) have running at once.
struct WebhookJob: JobKind {
    static let name = "webhook"
    var name: String { Self.name }

    /// What the delivery log says for an attempt that got no HTTP answer (refused, reset, timed out, TLS error).
    static let noResponse = "no HTTP response (the connection failed or timed out)"

    let policy: JobPolicy
    /// The time one POST may take.
    let timeout: Duration
    let metadata: any MetadataStore
    let webhooks: Webhooks
    let callbacks: CallbackPolicy
    let metrics: JobMetrics
    /// A session that does not follow redirects (``WebhookSession``).
    let session: URLSession

    private struct Delivery: Sendable {
        var tenant: String
        var url: String
        var event: String
        var body: String
        var giveUpAt: Int64
    }

    func run(_ job: Job, context: JobContext) async throws -> String {
        guard
            let delivery = try await metadata.read({ db in
                try db.queryFirst(
                    "SELECT tenant, url, event, body, give_up_at FROM webhook_deliveries WHERE id = ?", job.id
                ).map { row in
                    Delivery(
                        tenant: try row.decode("tenant"), url: try row.decode("url"), event: try row.decode("event"),
                        body: try row.decode("body"), giveUpAt: try row.decode("give_up_at"))
                }
            })
        else { throw JobFailure.permanent("delivery \(job.id) no longer exists") }
        let started = JobQueue.wallClock()
        let target: URL
        let hostHeader: String?
        do {
            (target, hostHeader) = try await resolve(delivery.url)
        } catch let refusal as CallbackPolicy.Refusal {
            context.logger.warning(
                "webhook refused", metadata: ["delivery": job.id, "url": delivery.url, "why": "\(refusal)"])
            // A blocked address stays blocked; a name that does not resolve may resolve later.
            return try await outcome(
                of: job, delivery, started: started, status: nil, failure: refusal.description,
                permanent: refusal == .blocked)
        } catch let invalid as PlatformError {
            // Stored before creation checked URLs fully: it can never be delivered.
            return try await outcome(
                of: job, delivery, started: started, status: nil, failure: invalid.message, permanent: true)
        }
        let secret = try await webhooks.secret(for: delivery.tenant)
        let body = Array(delivery.body.utf8)
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.timeoutInterval = Double(timeout.milliseconds) / 1000
        request.httpBody = Data(body)
        if let hostHeader { request.setValue(hostHeader, forHTTPHeaderField: "Host") }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Earshot-Webhooks/\(EarshotVersion.current)", forHTTPHeaderField: "User-Agent")
        request.setValue(delivery.event, forHTTPHeaderField: WebhookSignature.eventHeader)
        request.setValue(job.id, forHTTPHeaderField: WebhookSignature.deliveryHeader)
        request.setValue(
            Webhooks.signature(secret: secret, timestamp: started / 1000, body: body),
            forHTTPHeaderField: WebhookSignature.header)
        var status: Int?
        var failure: String?
        do {
            // Not `session.data(for:)`: cancelling it (a shutdown) while FoundationNetworking completes it deadlocks.
            let (_, response) = try await DeadlineExchange.send(
                request, session: session, timeout: timeout, failure: { $0 })
            status = (response as? HTTPURLResponse)?.statusCode
            if let status, !(200..<300).contains(status) { failure = "HTTP \(status)" }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            failure = Self.noResponse
            context.logger.notice(
                "webhook attempt got no response",
                metadata: ["delivery": job.id, "url": delivery.url, "error": "\(error)"])
        }
        try Task.checkCancellation()
        return try await outcome(of: job, delivery, started: started, status: status, failure: failure)
    }

    /// Logs the attempt and ends it: the result for a 2xx, else a retry with the policy's backoff while the retry
    /// period lasts (and the failure is not `permanent`), else a final failure.
    private func outcome(
        of job: Job, _ delivery: Delivery, started: Int64, status: Int?, failure: String?, permanent: Bool = false
    ) async throws -> String {
        let finished = JobQueue.wallClock()
        try await metadata.write { db in
            try db.execute(
                "INSERT INTO webhook_attempts (delivery_id, attempt, at, status, error, duration_ms) "
                    + "VALUES (?, ?, ?, ?, ?, ?)",
                job.id, job.attempts, started, status, failure, Int(finished - started))
        }
        metrics.webhookAttempt(delivered: failure == nil)
        guard let failure else { return "{\"status\":\(status ?? 0)}" }
        if permanent { throw JobFailure.permanent(failure) }
        let delay = JobQueue.Failure.backoff(
            attempt: job.attempts, base: policy.retryDelay, maximum: policy.maximumRetryDelay)
        if finished + delay.milliseconds > delivery.giveUpAt {
            throw JobFailure.permanent("\(failure); gave up after \(job.attempts) attempts (the retry period is over)")
        }
        throw JobFailure.retry(failure, after: delay)
    }

    /// The URL to connect to and the `Host` header to send: for `http`, the first permitted address of the host
    /// (so the connection goes where the check looked); for `https`, the URL itself — its certificate must name the
    /// host, so a changed DNS answer can only reach a server that proves it is that host.
    private func resolve(_ text: String) async throws -> (URL, String?) {
        let components = try CallbackPolicy.parse(text)
        guard let host = components.host, let url = components.url else {
            throw PlatformError.invalidArgument("callback_url \(text) is not a URL")
        }
        let secure = components.scheme?.lowercased() == "https"
        let port = components.port ?? (secure ? 443 : 80)
        let addresses = try await callbacks.addresses(of: host, port: port)
        // IPv4 first: a receiver that listens on IPv4 only is the common case, and there is one try per attempt.
        let preferred = addresses.first { !$0.isIPv6 } ?? addresses.first
        guard !secure, IPAddress(host) == nil, let address = preferred else { return (url, nil) }
        var direct = components
        direct.host = address.isIPv6 ? "[\(address)]" : "\(address)"
        guard let pinned = direct.url else { return (url, nil) }
        return (pinned, components.port.map { "\(host):\($0)" } ?? host)
    }
}

/// The URL session of webhook deliveries: ephemeral, and refusing every redirect (the 3xx is the answer).
final class WebhookSession: NSObject, URLSessionTaskDelegate, Sendable {
    /// A session using this delegate.
    static func make() -> URLSession {
        URLSession(configuration: .ephemeral, delegate: WebhookSession(), delegateQueue: nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
