/// The current access token and the single in-flight refresh, shared by every request of one client.
actor TokenStore {
    private(set) var current: String?
    private let provider: TokenProvider?
    private var refreshing: Task<String, any Error>?

    init(token: String?, provider: TokenProvider?) {
        self.current = token
        self.provider = provider
    }

    var hasProvider: Bool { provider != nil }

    func set(_ token: String) {
        current = token
    }

    /// The token to send: the current one, or the provider's when there is none yet.
    func token() async throws -> String? {
        if let current { return current }
        guard provider != nil else { return nil }
        return try await refresh(replacing: nil)
    }

    /// A fresh token after `rejected` was refused. If another request already replaced it, that token is returned
    /// without asking the provider again; concurrent callers share one provider call.
    func refresh(replacing rejected: String?) async throws -> String {
        if let current, current != rejected { return current }
        if let refreshing { return try await refreshing.value }
        guard let provider else {
            throw EarshotError(.unauthorized, "the token was refused and no token provider is configured")
        }
        // Joined by every caller below and cleared when done, so it never outlives the refresh (not fire-and-forget).
        let task = Task { try await provider() }
        refreshing = task
        defer { refreshing = nil }
        let token = try await task.value
        current = token
        return token
    }
}
