public import EarshotAPI
public import Foundation

/// Checks that a webhook really comes from your Earshot server and is fresh, then decodes it.
///
/// Earshot signs every webhook POST with `Earshot-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` over
/// `"<t>.<raw body>"`, keyed with your partner's webhook secret (``TranscriptionClient/webhookSecret()``). A
/// receiver must verify the **raw** body bytes, before any JSON parsing:
///
/// ```swift
/// let verifier = WebhookVerifier(secret: try await transcriptions.webhookSecret())
/// // in your POST /webhooks/earshot handler:
/// let task = try verifier.verifiedTask(signature: request.headers["Earshot-Signature"], body: rawBody)
/// ```
///
/// A signature older (or newer) than ``tolerance`` is refused, so a captured request cannot be replayed later.
/// Deliveries are at least once: deduplicate on the `Earshot-Delivery` header. A value type, safe to share.
public struct WebhookVerifier: Sendable {
    /// The partner's webhook secret (`whsec_…`).
    public var secret: String
    /// How far, in seconds, the signature's timestamp may be from this machine's clock (default 5 minutes).
    public var tolerance: TimeInterval

    /// - Parameters:
    ///   - secret: the partner's webhook secret (`whsec_…`).
    ///   - tolerance: seconds the signature's timestamp may be off this machine's clock.
    public init(secret: String, tolerance: TimeInterval = 300) {
        self.secret = secret
        self.tolerance = tolerance
    }

    /// The same verifier with the tolerance given as a `Duration` (`.seconds(300)`); stored in seconds.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public init(secret: String, tolerance: Duration) {
        self.init(secret: secret, tolerance: tolerance.timeInterval)
    }

    /// Verifies `signature` (the `Earshot-Signature` header, nil when absent) against the raw `body`.
    ///
    /// - Returns: the signature's timestamp (unix seconds).
    /// - Throws: ``EarshotError`` with code ``EarshotError/Code/unauthorized`` when the header is missing or
    ///   malformed, the HMAC does not match, or the timestamp is outside ``tolerance`` of `now`.
    @discardableResult
    public func verify(signature: String?, body: some Collection<UInt8>, now: Date = Date()) throws -> Int64 {
        guard let signature, !signature.isEmpty else {
            throw EarshotError(.unauthorized, "the webhook has no \(WebhookSignature.header) header")
        }
        var timestamp: Int64?
        var candidates: [String] = []
        for field in signature.split(separator: ",") {
            let pair = field.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) }
            if pair[0] == "v1" { candidates.append(pair[1].lowercased()) }
        }
        guard let timestamp, !candidates.isEmpty else {
            throw EarshotError(
                .unauthorized, "\(WebhookSignature.header) is not of the form t=<unix seconds>,v1=<hex HMAC>")
        }
        let skew = abs(now.timeIntervalSince1970 - Double(timestamp))
        guard skew <= tolerance else {
            throw EarshotError(
                .unauthorized,
                "the webhook was signed \(Int(skew)) s from this machine's clock (tolerance \(Int(tolerance)) s): "
                    + "a replay, or a clock that is off")
        }
        let expected = Array(sign(body: body, timestamp: timestamp).utf8.dropFirst("t=\(timestamp),v1=".count))
        guard candidates.contains(where: { Self.constantTimeEqual(Array($0.utf8), expected) }) else {
            throw EarshotError(.unauthorized, "the webhook signature does not match its body and your webhook secret")
        }
        return timestamp
    }

    /// Verifies like ``verify(signature:body:now:)``, then decodes the body: the task as
    /// `GET /open/partner/transcriptions/{task_id}` returns it, in its final state.
    ///
    /// - Throws: ``EarshotError`` `unauthorized` (see above) or `invalidArgument` when the body is not a task.
    public func verifiedTask(signature: String?, body: some Collection<UInt8>, now: Date = Date()) throws
        -> TranscriptionTask
    {
        try verify(signature: signature, body: body, now: now)
        do {
            return try JSONDecoder().decode(TranscriptionTask.self, from: Data(body))
        } catch {
            throw EarshotError(.invalidArgument, "the webhook body is not a transcription task", underlying: error)
        }
    }

    /// The `Earshot-Signature` value for `body` at `timestamp` (what the server sends; useful in tests).
    public func sign(body: some Collection<UInt8>, timestamp: Int64) -> String {
        let mac = SHA256.hmac(
            key: Array(secret.utf8), message: WebhookSignature.message(timestamp: timestamp, body: Array(body)))
        return "t=\(timestamp),v1=\(MD5.hexString(mac))"
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
