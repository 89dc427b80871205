public import EarshotAPI
public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// For a partner's own backend: client credentials → partner token → user tokens for the partner's app users.
///
/// ```swift
/// let tokens = PartnerTokenClient(baseURL: earshotURL, clientID: id, clientSecret: secret)
/// // your backend's POST /token handler:
/// let userToken = try await tokens.userToken(for: "user-42", ttlSeconds: 3600)
/// // server-side calls with the partner token (transcriptions):
/// let client = EarshotClient(baseURL: earshotURL, tokenProvider: tokens.provider)
/// ```
///
/// The partner token is cached and renewed a minute before it expires, or at once when the server refuses it.
/// The client secret must never leave your backend; never ship it in an app.
public actor PartnerTokenClient {
    private let client: EarshotClient
    private let credentials: PartnerTokenRequest
    private var cached: (token: String, renewAt: Date)?

    public init(baseURL: URL, clientID: String, clientSecret: String, session: URLSession = .shared) {
        self.client = EarshotClient(configuration: .init(baseURL: baseURL, session: session))
        self.credentials = PartnerTokenRequest(clientID: clientID, clientSecret: clientSecret)
    }

    /// `POST /open/partner/token`: a new partner token (always asks the server).
    public func requestPartnerToken() async throws -> TokenResponse {
        var request = try APIRequest.post(APIPath.partnerToken, json: credentials, idempotent: true)
        request.authenticated = false
        let response: TokenResponse = try await client.send(request)
        cached = (response.accessToken, Date().addingTimeInterval(TimeInterval(max(0, response.expiresIn - 60))))
        return response
    }

    /// A valid partner token: the cached one, or a new one when it is about to expire.
    public func partnerToken() async throws -> String {
        if let cached, cached.renewAt > Date() { return cached.token }
        return try await requestPartnerToken().accessToken
    }

    /// `POST /open/partner/user-token`: a short-lived token for your user `userID` (1–128 characters of
    /// `[A-Za-z0-9._@:-]`); `ttlSeconds` is capped by the server's `user-token-ttl`.
    public func userToken(for userID: String, ttlSeconds: Int? = nil) async throws -> TokenResponse {
        let request = try APIRequest.post(
            APIPath.userToken, json: UserTokenRequest(userID: userID, ttlSeconds: ttlSeconds))
        var refused: String?
        for _ in 0..<2 {
            let token = try await partnerToken()
            do {
                let (data, _) = try await client.perform(request, token: token)
                return try JSONDecoder().decode(TokenResponse.self, from: data)
            } catch let error as EarshotError where error.status == 401 && refused == nil {
                refused = token
                cached = nil
            }
        }
        throw EarshotError(.unauthorized, "the partner token was refused twice")
    }

    /// A ``TokenProvider`` that hands out partner tokens (for an ``EarshotClient`` making partner calls). It asks
    /// the server for a new token every time it is called, which the client does only after a 401.
    public nonisolated var provider: TokenProvider {
        { [self] in try await self.freshPartnerToken() }
    }

    private func freshPartnerToken() async throws -> String {
        return try await requestPartnerToken().accessToken
    }
}
