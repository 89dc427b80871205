import EarshotAccounts
import EarshotHTTP

/// Account sessions as credentials of ``APIRoutes``: a bearer session token (`Authorization: Bearer est_…`) on
/// session routes, and the console's session cookie on session routes and on user routes, where every
/// state-changing request must repeat the session's CSRF token in `X-CSRF-Token`.
///
/// A session's principal is a user of its tenant (the account id is the user id) with the user scopes, and its
/// ``Principal/tokenID`` is the session id.
struct SessionCredentials: Sendable {
    static let cookieName = "earshot_session"
    static let csrfCookieName = "earshot_csrf"
    static let csrfHeader = "X-CSRF-Token"

    let directory: AccountDirectory

    /// The session of `request`: its bearer session token, else its session cookie (checking CSRF on
    /// state-changing methods). 401 without one, 403 for a missing or wrong CSRF token.
    func authenticate(_ request: Request) async throws -> Principal {
        if let header = request.headers["Authorization"] {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw PlatformError.unauthorized("the Authorization header must be 'Bearer <session token>'")
            }
            let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
            guard token.hasPrefix("est_") else {
                throw PlatformError.unauthorized(
                    "this call needs a session token (est_…, from sign-in), not an access token")
            }
            return try await principal(token: token, request: request, cookie: false)
        }
        guard let token = Self.cookie(Self.cookieName, in: request) else {
            throw PlatformError.unauthorized(
                "sign in first: send 'Authorization: Bearer <session token>' or the \(Self.cookieName) cookie")
        }
        return try await principal(token: token, request: request, cookie: true)
    }

    /// True when `request` presents an account session: a bearer session token (`est_…`), or a session cookie and
    /// no `Authorization` header. Anything else is a token or API key (or nothing).
    static func carriesSession(_ request: Request) -> Bool {
        if let header = request.headers["Authorization"] {
            let parts = header.split(separator: " ", maxSplits: 1)
            return parts.count == 2 && parts[1].trimmingCharacters(in: .whitespaces).hasPrefix("est_")
        }
        return cookie(cookieName, in: request) != nil
    }

    /// True when `request` carries a session cookie and no `Authorization` header (the console's requests).
    static func usesCookie(_ request: Request) -> Bool {
        request.headers["Authorization"] == nil && cookie(cookieName, in: request) != nil
    }

    private func principal(token: String, request: Request, cookie: Bool) async throws -> Principal {
        let (session, account) = try await directory.authenticate(sessionToken: token)
        guard (session.kind == .cookie) == cookie else {
            throw PlatformError.unauthorized(
                cookie
                    ? "this session is a bearer session; send it as 'Authorization: Bearer'"
                    : "this session is a cookie session; it works only as the \(Self.cookieName) cookie")
        }
        if cookie && !["GET", "HEAD", "OPTIONS"].contains(request.method.rawValue) {
            guard try await directory.checkCSRF(sessionID: session.id, csrfToken: request.headers[Self.csrfHeader])
            else {
                throw PlatformError.forbidden(
                    "missing or wrong \(Self.csrfHeader) header: repeat the csrf_token from sign-in (also in the "
                        + "\(Self.csrfCookieName) cookie) on every request that changes something")
            }
        }
        return Principal(
            partnerID: account.partnerID, userID: account.id, scopes: Set(Scope.user.map(\.rawValue)),
            tokenID: session.id, isInstanceOwner: account.isInstanceOwner)
    }

    /// The value of cookie `name` in the request's `Cookie` headers.
    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }
}
