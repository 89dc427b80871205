import EarshotAPI
import EarshotHTTP

/// `POST /open/partner/token` (client credentials → partner token) and `POST /open/partner/user-token`
/// (partner token + `user_id` → user token).
struct AuthRoutes: Sendable {
    let tokens: TokenService
    /// Rate limits and caches the client-credentials check.
    let credentials: CredentialGate

    func register(on api: APIRoutes) {
        api.open(.post, APIPath.partnerToken) { request, _ in
            let body = try request.decode(PartnerTokenRequest.self)
            let partner = try await credentials.authenticate(
                clientID: body.clientID, clientSecret: body.clientSecret, address: request.remoteAddress)
            return try .json(try await tokens.partnerToken(for: partner), headers: ["Cache-Control": "no-store"])
        }
        api.post(APIPath.userToken, .partner) { request, _, caller in
            let body = try request.decode(UserTokenRequest.self)
            let token = try await tokens.userToken(for: caller, userID: body.userID, ttlSeconds: body.ttlSeconds)
            return try .json(token, headers: ["Cache-Control": "no-store"])
        }
    }
}
