internal import Foundation

/// What libpq needs to connect: the database URL and the settings Earshot adds to it.
struct ConnectionParameters: Sendable {
    /// `postgresql://user@host:port/database?sslmode=…` (any libpq connection URI or `key=value` string).
    let url: String
    /// Overrides the URL's password (read from a file or the environment, so it stays out of the URL).
    let password: String?
    /// Used unless the URL sets `connect_timeout`.
    let connectTimeoutSeconds: Int
    let applicationName: String

    /// The URL without its password, for messages and logs.
    var displayName: String { Self.redacted(url) }

    /// `url` with the password of its user-info part replaced by `***`.
    static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else {
            return url
        }
        let userInfo = url[scheme.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }

    /// Calls `body` with NULL-terminated keyword and value arrays for `PQconnectdbParams` (expand_dbname = 1: the
    /// URL comes first and later keywords override what it says).
    func withCParameters<R>(
        _ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<UnsafePointer<CChar>?>) -> R
    ) -> R {
        var pairs: [(String, String)] = [("dbname", url), ("application_name", applicationName)]
        if !url.contains("connect_timeout") { pairs.append(("connect_timeout", "\(connectTimeoutSeconds)")) }
        pairs.append(("client_encoding", "UTF8"))
        // Migrations' `IF NOT EXISTS` notices are not worth a line on stderr.
        if !url.contains("options") { pairs.append(("options", "-c client_min_messages=warning")) }
        if let password { pairs.append(("password", password)) }
        let keywords = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            for pointer in keywords + values { free(pointer) }
        }
        let keywordArray = keywords.map { UnsafePointer($0) } + [nil]
        let valueArray = values.map { UnsafePointer($0) } + [nil]
        return keywordArray.withUnsafeBufferPointer { k in
            valueArray.withUnsafeBufferPointer { v in body(k.baseAddress!, v.baseAddress!) }
        }
    }
}
