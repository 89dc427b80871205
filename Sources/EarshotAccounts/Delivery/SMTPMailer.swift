internal import CCurl
import Dispatch
import Foundation

/// Sends email over SMTP with libcurl: STARTTLS on `smtp://` (required unless configured otherwise), implicit TLS
/// on `smtps://`, optional AUTH, a CA file for private certificate authorities.
///
/// Each message is one SMTP session on a dispatch thread (libcurl's easy interface blocks), bounded by
/// ``Configuration/timeout``. A 4xx reply or a connection failure is ``AccountError/Code/unavailable`` (retry); a 5xx
/// reply to the recipient or the data is ``AccountError/Code/invalidArgument`` (do not retry).
public struct SMTPMailer: MessageSender {
    /// How to reach the mail server.
    public struct Configuration: Sendable, Hashable {
        /// `smtp://host[:port]` (STARTTLS) or `smtps://host[:port]` (TLS from the first byte).
        public var url: String
        /// The envelope and `From:` address.
        public var from: String
        /// SMTP AUTH user, if the server needs one.
        public var username: String?
        /// SMTP AUTH password.
        public var password: String?
        /// STARTTLS on `smtp://`: `required` (default; refuse a server without it), `optional`, or `off`.
        public var startTLS: StartTLS = .required
        /// PEM file of the certificate authorities to trust (default: the system's).
        public var caFile: String?
        /// The longest one message may take, connection included.
        public var timeout: Duration = .seconds(30)

        /// A mail server at `url` sending as `from`.
        public init(
            url: String, from: String, username: String? = nil, password: String? = nil,
            startTLS: StartTLS = .required, caFile: String? = nil, timeout: Duration = .seconds(30)
        ) {
            self.url = url
            self.from = from
            self.username = username
            self.password = password
            self.startTLS = startTLS
            self.caFile = caFile
            self.timeout = timeout
        }
    }

    /// Whether an `smtp://` session must upgrade to TLS.
    public enum StartTLS: String, Sendable, Hashable, CaseIterable {
        case required, optional, off
    }

    /// How to reach the mail server.
    public let configuration: Configuration
    /// `Date:` of the message (injectable for tests).
    var now: @Sendable () -> Date = Date.init

    /// A mail server at `url` sending as `from`.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Sends one message in one SMTP session (see the type for failures).
    public func send(_ message: OutboundMessage) async throws {
        let bytes = Array(Self.format(message, from: configuration.from, date: now()).utf8)
        let configuration = self.configuration
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try Self.transfer(bytes, to: message.destination, configuration) })
            }
        }
    }

    /// The RFC 5322 message: headers, a blank line, the body, CRLF line ends, dot-stuffing left to libcurl.
    static func format(_ message: OutboundMessage, from: String, date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
        let id = UUID().uuidString.lowercased()
        let lines = [
            "Date: \(formatter.string(from: date))", "From: \(from)", "To: \(message.destination)",
            "Subject: \(message.subject)", "Message-ID: <\(id)@\(domain)>", "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit", "",
        ]
        let body = message.body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return (lines + body).joined(separator: "\r\n") + "\r\n"
    }

    /// One blocking SMTP session.
    private static func transfer(_ bytes: [UInt8], to recipient: String, _ configuration: Configuration) throws {
        _ = globalInit
        guard let handle = curl_easy_init() else { throw AccountError(.internal, "libcurl curl_easy_init failed") }
        defer { curl_easy_cleanup(handle) }
        let source = Unmanaged.passRetained(Source(bytes: bytes))
        defer { source.release() }
        var recipients: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "<\(recipient)>")
        defer { curl_slist_free_all(recipients) }
        let timeout = Int(configuration.timeout.milliseconds)
        try check(earshot_curl_setopt_string(handle, CURLOPT_URL, configuration.url), "CURLOPT_URL")
        try check(earshot_curl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(configuration.from)>"), "MAIL_FROM")
        try check(earshot_curl_setopt_list(handle, CURLOPT_MAIL_RCPT, recipients), "MAIL_RCPT")
        if configuration.url.lowercased().hasPrefix("smtp://") {
            let level: curl_usessl =
                switch configuration.startTLS {
                case .required: CURLUSESSL_ALL
                case .optional: CURLUSESSL_TRY
                case .off: CURLUSESSL_NONE
                }
            try check(earshot_curl_setopt_long(handle, CURLOPT_USE_SSL, Int(level.rawValue)), "CURLOPT_USE_SSL")
        }
        if let username = configuration.username {
            try check(earshot_curl_setopt_string(handle, CURLOPT_USERNAME, username), "CURLOPT_USERNAME")
            try check(earshot_curl_setopt_string(handle, CURLOPT_PASSWORD, configuration.password ?? ""), "PASSWORD")
        }
        if let caFile = configuration.caFile {
            try check(earshot_curl_setopt_string(handle, CURLOPT_CAINFO, caFile), "CURLOPT_CAINFO")
        }
        try check(earshot_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try check(earshot_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeout), "CURLOPT_TIMEOUT_MS")
        try check(earshot_curl_setopt_long(handle, CURLOPT_UPLOAD, 1), "CURLOPT_UPLOAD")
        try check(earshot_curl_setopt_read_function(handle, readCallback), "CURLOPT_READFUNCTION")
        try check(earshot_curl_setopt_pointer(handle, CURLOPT_READDATA, source.toOpaque()), "CURLOPT_READDATA")
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let result = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            _ = earshot_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            return curl_easy_perform(handle)
        }
        var reply = 0
        _ = earshot_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &reply)
        recipients = nil
        guard result != CURLE_OK else { return }
        let buffered = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let detail = buffered.isEmpty ? String(cString: curl_easy_strerror(result)) : buffered
        let text =
            "SMTP to \(recipient) via \(configuration.url) failed: \(detail)"
            + (reply > 0 ? " (last reply \(reply))" : "")
        // A 5xx reply (recipient refused, message refused, authentication refused) will not change by itself;
        // 4xx replies, timeouts and connection failures may pass later.
        if (500..<600).contains(reply) { throw AccountError(.invalidArgument, text) }
        throw AccountError(.unavailable, text)
    }

    private static func check(_ code: CURLcode, _ what: String) throws {
        guard code == CURLE_OK else {
            throw AccountError(
                .internal, "libcurl curl_easy_setopt(\(what)) failed: \(String(cString: curl_easy_strerror(code)))")
        }
    }

    /// `curl_global_init`, once per process, before the first handle (it is not thread-safe).
    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// The message bytes libcurl reads.
    private final class Source {
        let bytes: [UInt8]
        var offset = 0
        init(bytes: [UInt8]) { self.bytes = bytes }
    }

    private static let readCallback: earshot_curl_read_callback = { buffer, size, count, context in
        guard let buffer, let context else { return 0 }
        let source = Unmanaged<Source>.fromOpaque(context).takeUnretainedValue()
        let n = min(size * count, source.bytes.count - source.offset)
        source.bytes.withUnsafeBufferPointer { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + source.offset, byteCount: n)
        }
        source.offset += n
        return n
    }
}
