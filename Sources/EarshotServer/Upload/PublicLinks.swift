import Synchronization

/// Builds the absolute URLs the API hands out (presigned parts, downloads) from the public base URL and the API
/// prefix.
///
/// The base is `public-url` when configured (a proxy in front), otherwise `http://<host>:<bound port>`, which is
/// only known once the server listens; ``setDerivedBase(_:)`` fills it in then.
final class PublicLinks: Sendable {
    /// Prepended to every API path (`""` or e.g. `/developer/api`).
    let prefix: String
    private let base: Mutex<String>
    private let configured: Bool

    init(configuredBase: String?, prefix: String) {
        self.prefix = prefix
        self.configured = configuredBase != nil
        var trimmed = configuredBase ?? "http://127.0.0.1"
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.base = Mutex(trimmed)
    }

    /// Sets the base derived from the bound address, unless `public-url` was configured.
    func setDerivedBase(_ derived: String) {
        guard !configured else { return }
        base.withLock { $0 = derived }
    }

    /// `<base><prefix><path>?<query>`.
    func url(_ path: String, query: String) -> String {
        base.withLock { $0 } + prefix + path + (query.isEmpty ? "" : "?" + query)
    }
}
