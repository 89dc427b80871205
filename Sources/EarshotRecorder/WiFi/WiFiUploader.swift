internal import EarshotCore
internal import EarshotDevice
internal import Foundation

#if canImport(FoundationNetworking)
    internal import FoundationNetworking
#endif

/// The recorder's Wi-Fi: PUTs the parts of a handed-over upload plan straight to the platform's presigned URLs, at
/// Wi-Fi speed (optionally capped), with retries, and reports what happened as device events.
public struct WiFiUploader: Sendable {
    /// The Wi-Fi link's settings.
    public struct Configuration: Sendable {
        /// Sustained upload rate in bytes per second (0: as fast as the network goes).
        public var bytesPerSecond = 0
        /// Attempts per part on a network error or a 5xx.
        public var attempts = 4
        /// Seconds per PUT.
        public var timeoutSeconds: Double = 120

        public init() {}
    }

    let configuration: Configuration
    let session: URLSession

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let settings = URLSessionConfiguration.ephemeral
        settings.timeoutIntervalForRequest = configuration.timeoutSeconds
        settings.httpMaximumConnectionsPerHost = 2
        session = URLSession(configuration: settings)
    }

    /// Checks a plan against the recording before anything moves: parts in range, contiguous, covering it, URLs
    /// http(s), not expired.
    ///
    /// - Throws: ``DeviceProtocolError`` `malformed` or `outOfRange` naming the problem.
    static func validate(_ plan: UploadPlan, size: UInt64, nowMs: UInt64) throws {
        guard !plan.parts.isEmpty else { throw DeviceProtocolError(.malformed, "upload: the plan has no parts") }
        guard plan.expiresAtMs > nowMs else {
            throw DeviceProtocolError(.malformed, "upload: the plan expired; ask the platform for a new one")
        }
        for part in plan.parts {
            guard part.length > 0, part.offset + UInt64(part.length) <= size else {
                throw DeviceProtocolError(
                    .outOfRange,
                    "upload: part \(part.number) (\(part.offset)+\(part.length)) is outside the recording (\(size) bytes)"
                )
            }
            guard let url = URL(string: part.url), ["http", "https"].contains(url.scheme ?? "") else {
                throw DeviceProtocolError(.malformed, "upload: part \(part.number) has no http(s) URL")
            }
        }
        let numbers = plan.parts.map(\.number)
        guard Set(numbers).count == numbers.count else {
            throw DeviceProtocolError(.malformed, "upload: a part number appears twice")
        }
    }

    /// Uploads every part (reading each with `read`), reporting progress after each part but the last (the caller
    /// reports the end); returns the ETags by part number.
    ///
    /// - Throws: the reason of the first part that failed all its attempts, or `CancellationError`.
    func upload(
        _ plan: UploadPlan, read: @Sendable (UploadPlan.Part) async throws -> [UInt8],
        progress: @Sendable (UInt64, UInt64) async -> Void
    ) async throws -> [UInt16: String] {
        let total = plan.parts.reduce(UInt64(0)) { $0 + UInt64($1.length) }
        var sent: UInt64 = 0
        var etags: [UInt16: String] = [:]
        let started = ContinuousClock.now
        for part in plan.parts.sorted(by: { $0.number < $1.number }) {
            try Task.checkCancellation()
            let bytes = try await read(part)
            guard bytes.count == Int(part.length) else {
                throw DeviceProtocolError(
                    .deviceFault, "part \(part.number): read \(bytes.count) of \(part.length) bytes")
            }
            etags[part.number] = try await put(Data(bytes), to: part)
            sent += UInt64(part.length)
            // The last part's progress would say what `upload finished` says a moment later: on a small recording
            // (one part) that halves the events the link carries.
            if sent < total { await progress(sent, total) }
            if configuration.bytesPerSecond > 0 {
                let due = started + .nanoseconds(Int64(sent) * 1_000_000_000 / Int64(configuration.bytesPerSecond))
                if due > .now { try await Task.sleep(until: due, clock: .continuous) }
            }
        }
        return etags
    }

    private func put(_ body: Data, to part: UploadPlan.Part) async throws -> String {
        var request = URLRequest(url: URL(string: part.url)!)
        request.httpMethod = "PUT"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        var last = "no attempt"
        for attempt in 1...max(configuration.attempts, 1) {
            try Task.checkCancellation()
            do {
                // Not `session.upload(for:)`: cancelling it (the card stopped) while it completes deadlocks on Linux.
                let (data, response) = try await DeadlineExchange.send(
                    request, session: session, timeout: .seconds(300), failure: { $0 })
                guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
                if (200..<300).contains(http.statusCode), let etag = http.value(forHTTPHeaderField: "ETag") {
                    return etag
                }
                last = "HTTP \(http.statusCode): " + String(decoding: data.prefix(200), as: UTF8.self)
                if (400..<500).contains(http.statusCode) && http.statusCode != 408 && http.statusCode != 429 {
                    break  // expired or refused: retrying the same URL cannot help
                }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                last = "\(error)"
            }
            try await Task.sleep(for: .milliseconds(200 * attempt))
        }
        throw DeviceProtocolError(.deviceFault, "part \(part.number): \(last)")
    }
}
