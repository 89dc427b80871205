import EarshotCore
public import Foundation

/// The scale-out backends the tests run against when `scripts/with-backends` started them (`make test` does): a
/// PostgreSQL cluster and an S3 server on 127.0.0.1, started once for the whole run. Without them the suites run on
/// SQLite and the file system only.
public enum ScaleOutBackends {
    private static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// A role that may create databases, connected to the `postgres` database; nil when no cluster runs.
    public static var postgresURL: String? { environment["EARSHOT_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 } }

    /// The same cluster as its superuser (to end other sessions).
    public static var postgresAdminURL: String? { environment["EARSHOT_TEST_POSTGRES_ADMIN_URL"] }

    /// The S3 server: endpoint, access key id, secret; nil when none runs.
    public static var s3: (endpoint: URL, accessKeyID: String, secretAccessKey: String)? {
        guard let endpoint = environment["EARSHOT_TEST_S3_ENDPOINT"].flatMap(URL.init(string:)),
            let key = environment["EARSHOT_TEST_S3_ACCESS_KEY_ID"],
            let secret = environment["EARSHOT_TEST_S3_SECRET_ACCESS_KEY"]
        else { return nil }
        return (endpoint, key, secret)
    }

    /// True when both backends run.
    public static var available: Bool { postgresURL != nil && s3 != nil }

    /// Creates a new, empty database (owned by the test role) and returns its URL.
    public static func newDatabase(_ label: String = "test") throws -> String {
        guard let base = postgresURL else { throw BackendUnavailable(what: "PostgreSQL") }
        let name = "earshot_\(label.lowercased().filter { $0.isLetter || $0.isNumber })_"
            + UUID().uuidString.prefix(8).lowercased()
        try psql(base, "CREATE DATABASE \(name)")
        return url(base, database: name)
    }

    /// A fresh bucket name (the S3 store creates it when it opens).
    public static func newBucketName(_ label: String = "test") -> String {
        "earshot-\(label.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(20))-"
            + UUID().uuidString.prefix(8).lowercased()
    }

    /// `base` with its database replaced by `database`.
    public static func url(_ base: String, database: String) -> String {
        guard let slash = base.range(of: "/", options: .backwards) else { return base }
        let rest = base[slash.upperBound...]
        let query = rest.firstIndex(of: "?").map { String(rest[$0...]) } ?? ""
        return String(base[..<slash.upperBound]) + database + query
    }

    /// Runs one statement with `psql` (outside a transaction, as `CREATE DATABASE` needs).
    public static func psql(_ url: String, _ statement: String) throws {
        let (termination, output) = try Subprocess.run(
            "/usr/bin/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", statement])
        guard termination.succeeded else {
            throw BackendUnavailable(what: "psql \(statement): \(String(decoding: output, as: UTF8.self))")
        }
    }

    public struct BackendUnavailable: Error, CustomStringConvertible {
        public let what: String
        public var description: String {
            "\(what) is not available: run the tests through scripts/with-backends (make test does)"
        }
    }
}
