public import EarshotAPI
public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Asked for a fresh access token when the server answers 401 `UNAUTHORIZED` (or before the first request when
/// no token was configured). In an app: call your own backend's `POST /token`. In a partner backend: exchange
/// client credentials (see ``PartnerTokenClient``).
public typealias TokenProvider = @Sendable () async throws -> String

/// The connection to one Earshot server: base URL, the current access token and how to renew it.
///
/// ```swift
/// let client = EarshotClient(configuration: .init(
///     baseURL: URL(string: "https://earshot.example.com")!,
///     token: userToken,
///     tokenProvider: { try await myBackend.fetchUserToken() }))
/// let file = try await FileUploader(client: client).upload(fileAt: recordingURL)
/// ```
///
/// Every API call sends `Authorization: Bearer <token>`. On 401 the client asks the ``TokenProvider`` once for a
/// new token (concurrent calls share one refresh), stores it and repeats the request once; if the provider throws
/// or the new token is refused too, the call throws ``EarshotError`` with code ``EarshotError/Code/unauthorized``.
/// Thread-safe: share one client across tasks.
public final class EarshotClient: Sendable {
    /// Where the server is and how to authenticate.
    public struct Configuration: Sendable {
        /// The server's base URL including any API prefix, e.g. `https://host/developer/api`.
        public var baseURL: URL
        /// The access token to start with (a user token in an app, a partner token in a backend).
        public var token: String?
        /// Called once per 401 for a fresh token; nil means a 401 is final.
        public var tokenProvider: TokenProvider?
        /// The session used for every request (default `URLSession.shared`).
        public var session: URLSession
        /// Retries of idempotent API calls on transient failures.
        public var retry: RetryPolicy

        public init(
            baseURL: URL, token: String? = nil, tokenProvider: TokenProvider? = nil,
            session: URLSession = .shared, retry: RetryPolicy = RetryPolicy(maxAttempts: 3)
        ) {
            self.baseURL = baseURL
            self.token = token
            self.tokenProvider = tokenProvider
            self.session = session
            self.retry = retry
        }
    }

    /// The options this client was created with (``Configuration/token`` is only the initial token).
    public let configuration: Configuration
    let tokens: TokenStore

    public init(configuration: Configuration) {
        self.configuration = configuration
        self.tokens = TokenStore(token: configuration.token, provider: configuration.tokenProvider)
    }

    /// A client for `baseURL` starting with `token`.
    public convenience init(baseURL: URL, token: String? = nil, tokenProvider: TokenProvider? = nil) {
        self.init(configuration: Configuration(baseURL: baseURL, token: token, tokenProvider: tokenProvider))
    }

    /// Replaces the access token (after your app signs in again or fetched a token itself). Requests already in
    /// flight keep the token they were sent with.
    public func setUserToken(_ token: String) async {
        await tokens.set(token)
    }

    /// The access token currently in use, if any.
    public var currentToken: String? {
        get async { await tokens.current }
    }

    // MARK: Files

    /// `GET /open/partner/files/{file_id}`: a file's size, SHA-256 and a fresh download URL.
    public func file(_ fileID: String) async throws -> FileInfo {
        try await send(.get(path(APIPath.file, ["file_id": fileID])))
    }

    /// `GET …/upload/{upload_id}/parts`: the parts the server holds and fresh URLs for the missing ones.
    public func uploadStatus(_ uploadID: String) async throws -> UploadStatus {
        try await send(.get(path(APIPath.uploadParts, ["upload_id": uploadID])))
    }

    /// `DELETE …/upload/{upload_id}`: aborts an unfinished upload and discards its parts.
    public func abortUpload(_ uploadID: String) async throws {
        let _: Empty = try await send(.init(method: "DELETE", path: path(APIPath.upload, ["upload_id": uploadID])))
    }

    /// Fills `{name}` parameters of an ``APIPath`` pattern (percent-encoding the values).
    func path(_ pattern: String, _ values: [String: String]) -> String {
        var result = pattern
        for (name, value) in values {
            let encoded = value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"]))
            result = result.replacingOccurrences(of: "{\(name)}", with: encoded ?? value)
        }
        return result
    }
}

/// A body-less answer (`204`).
struct Empty: Decodable, Sendable {}
