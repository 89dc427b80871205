internal import EarshotCrypto
public import Foundation

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`): signs S3 requests in the `Authorization` header and presigns URLs
/// in the query string.
///
/// Checked against AWS's published vectors (the SigV4 test suite's `get-vanilla…` cases and the examples of the S3
/// documentation, recomputed by botocore) in `SignatureV4Tests`. Paths are given already URI-encoded the S3 way
/// (``encodePath(_:)``: every byte but the unreserved ones, `/` kept) and are not normalised, as S3 requires.
/// A value type: safe to share between tasks.
public struct SignatureV4: Sendable {
    /// An access key and its secret (and a session token for temporary credentials).
    public struct Credentials: Sendable, Hashable {
        public var accessKeyID: String
        public var secretAccessKey: String
        public var sessionToken: String?

        public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }
    }

    /// The SHA-256 (hex) of an empty payload.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The payload hash of presigned URLs (and of requests whose body is not hashed).
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    public let credentials: Credentials
    /// The region in the credential scope (`us-east-1` for most S3-compatible servers).
    public let region: String
    /// The service in the credential scope (`s3`).
    public let service: String

    public init(credentials: Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to add to a request: `x-amz-date`, `x-amz-content-sha256` (S3 only), `x-amz-security-token`
    /// when the credentials have one, and `Authorization`.
    ///
    /// - Parameters:
    ///   - path: the URI-encoded path (`/bucket/key`).
    ///   - query: the query parameters, not encoded.
    ///   - headers: the headers to sign, `host` included (names in any case).
    ///   - payloadHash: the body's SHA-256 (hex), or ``unsignedPayload``.
    public func signedHeaders(
        method: String, path: String, query: [(String, String)] = [], headers: [(String, String)],
        payloadHash: String, date: Date
    ) -> [(String, String)] {
        let stamp = Timestamp(date)
        var added: [(String, String)] = [("x-amz-date", stamp.full)]
        if service == "s3" { added.append(("x-amz-content-sha256", payloadHash)) }
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        let all = headers + added
        let (canonicalHeaders, signedNames) = Self.canonicalHeaders(all)
        let request = [
            method, path, Self.canonicalQuery(query), canonicalHeaders, signedNames, payloadHash,
        ].joined(separator: "\n")
        let signature = sign(request, stamp: stamp)
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(stamp)), "
            + "SignedHeaders=\(signedNames), Signature=\(signature)"
        return added + [("Authorization", authorization)]
    }

    /// A presigned URL: anyone holding it may make this one request (`method` on `path`) until `expires` after
    /// `date` (at most 7 days). Only `host` is signed, and the payload is unsigned.
    ///
    /// - Parameters:
    ///   - base: scheme, host and port (`http://127.0.0.1:8333`).
    ///   - path: the URI-encoded path.
    ///   - query: extra query parameters (`partNumber`, `uploadId`), not encoded.
    public func presignedURL(
        method: String, base: URL, path: String, query: [(String, String)] = [], expires: Duration, date: Date
    ) -> URL {
        let stamp = Timestamp(date)
        let host = Self.hostHeader(base)
        var parameters: [(String, String)] =
            query + [
                ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
                ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(stamp))"),
                ("X-Amz-Date", stamp.full),
                ("X-Amz-Expires", String(max(1, min(604_800, expires.components.seconds)))),
                ("X-Amz-SignedHeaders", "host"),
            ]
        if let token = credentials.sessionToken { parameters.append(("X-Amz-Security-Token", token)) }
        let request = [
            method, path, Self.canonicalQuery(parameters), "host:\(host)\n", "host", Self.unsignedPayload,
        ].joined(separator: "\n")
        // The signature goes last, as in AWS's examples (the order of parameters does not matter to the store).
        let signature = sign(request, stamp: stamp)
        return URL(
            string: Self.origin(base) + path + "?" + Self.canonicalQuery(parameters) + "&X-Amz-Signature=" + signature)!
    }

    // MARK: Canonical forms

    /// `value` URI-encoded as SigV4 wants: every byte but `A-Z a-z 0-9 - _ . ~` as `%XX` (upper-case hex); `/` kept
    /// when `keepSlash`.
    public static func encode(_ value: String, keepSlash: Bool = false) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            if isUnreserved(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"): true
        case UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// An S3 object path (`/bucket/key`) URI-encoded once, slashes kept.
    public static func encodePath(_ path: String) -> String { encode(path, keepSlash: true) }

    /// Parameters encoded and sorted by name, then value: `a=1&b=2` (also the query string of requests).
    static func canonicalQuery(_ query: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { (encode($0.0), encode($0.1)) }
        let sorted = encoded.sorted { a, b in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { pair in pair.name + "=" + pair.value }.joined(separator: "&")
    }

    /// `name:value\n` per header (names lower-cased and sorted, values trimmed with inner runs of spaces collapsed,
    /// repeated names joined with commas) and the `;`-joined names.
    static func canonicalHeaders(_ headers: [(String, String)]) -> (String, String) {
        var merged: [String: [String]] = [:]
        for (name, value) in headers {
            let collapsed = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            merged[name.lowercased(), default: []].append(collapsed)
        }
        let names = merged.keys.sorted()
        let text = names.map { "\($0):\(merged[$0]!.joined(separator: ","))\n" }.joined()
        return (text, names.joined(separator: ";"))
    }

    /// The `Host` header of `url`: host, and the port when it is not the scheme's default.
    static func hostHeader(_ url: URL) -> String {
        let host = url.host ?? ""
        guard let port = url.port else { return host }
        let defaultPort = url.scheme == "https" ? 443 : 80
        return port == defaultPort ? host : "\(host):\(port)"
    }

    /// `scheme://host[:port]`.
    static func origin(_ url: URL) -> String { "\(url.scheme ?? "http")://\(hostHeader(url))" }

    // MARK: Signing

    private func scope(_ stamp: Timestamp) -> String { "\(stamp.day)/\(region)/\(service)/aws4_request" }

    private func sign(_ canonicalRequest: String, stamp: Timestamp) -> String {
        let stringToSign = [
            "AWS4-HMAC-SHA256", stamp.full, scope(stamp),
            DigestAlgorithm.sha256.hash(Array(canonicalRequest.utf8)).hex,
        ].joined(separator: "\n")
        var key = Array("AWS4\(credentials.secretAccessKey)".utf8)
        for part in [stamp.day, region, service, "aws4_request"] {
            key = HMAC.authenticationCode(key: key, message: Array(part.utf8)).bytes
        }
        return HMAC.authenticationCode(key: key, message: Array(stringToSign.utf8)).hex
    }

    /// `20130524T000000Z` and `20130524`, in UTC.
    struct Timestamp {
        let full: String
        let day: String

        init(_ date: Date) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
            day = "\(c.year ?? 1970)\(two(c.month))\(two(c.day))"
            full = "\(day)T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
        }
    }
}
