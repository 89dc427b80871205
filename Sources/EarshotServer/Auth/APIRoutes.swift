import EarshotAPI
import EarshotHTTP

/// Who may call a route: declared where the route is registered and checked before its handler runs.
enum Access: Sendable {
    /// A partner token.
    case partner
    /// A partner token, or a user token carrying `scope`; the handler limits what it reads and writes to the
    /// caller (a user token sees only its own user's data). The console's session cookie counts as a user token
    /// (with its CSRF header on state-changing requests).
    case partnerOrUser(Scope)
    /// An account session: a bearer session token (`est_…`) or the console's session cookie (``SessionCredentials``).
    case session
    /// The instance owner's account session (bearer or cookie, with CSRF as for ``session``): the admin routes
    /// (`/open/admin/…`). Any other valid credential — another account's session, a partner or user token, an API
    /// key — is 403 `OWNER_REQUIRED`; a missing, forged, expired or revoked one is 401.
    case owner
}

/// A handler of an authenticated route: the request, its context and the verified caller.
typealias AuthenticatedHandler = @Sendable (Request, RequestContext, Principal) async throws -> Response

/// An inline attempt at an authenticated route (``InlineAttempt``): a response, or nil to let the route's
/// ``AuthenticatedHandler`` answer.
typealias AuthenticatedAttempt = @Sendable (Request, RequestContext, Principal) throws -> Response?

/// The platform API's routes. Each declares its credential — a token (``Access``), a signed URL
/// (``SignedRoute``), or none — and an authenticated handler receives the caller, so no handler authenticates by
/// convention.
struct APIRoutes: Sendable {
    let builder: RouteGroup
    let tokens: TokenService
    let signer: URLSigner
    /// Account sessions, when accounts are served (``Access/session`` and the console's cookie).
    var sessions: SessionCredentials? = nil

    /// Registers `handler` for `method` on `path`, reached only by callers `access` admits (401 without a valid
    /// token, 403 `FORBIDDEN` for a token that may not).
    func on(
        _ method: HTTPMethod, _ path: String, _ access: Access, body: BodyMode = .buffered(),
        use handler: @escaping AuthenticatedHandler
    ) {
        builder.on(method, path, body: body, use: authenticated(access, handler))
    }

    /// `handler` behind the credential check `access` asks for.
    private func authenticated(_ access: Access, _ handler: @escaping AuthenticatedHandler) -> Handler {
        { [tokens, sessions] request, context in
            let caller: Principal
            switch access {
            case .partner:
                caller = try await tokens.authenticate(request)
                try caller.requirePartner()
            case .partnerOrUser(let scope):
                if let sessions, SessionCredentials.usesCookie(request) {
                    caller = try await sessions.authenticate(request)
                } else {
                    caller = try await tokens.authenticate(request)
                }
                try caller.require(scope)
            case .session:
                guard let sessions else { throw PlatformError.unauthorized("accounts are not served here") }
                caller = try await sessions.authenticate(request)
            case .owner:
                guard let sessions else { throw PlatformError.unauthorized("accounts are not served here") }
                if SessionCredentials.carriesSession(request) {
                    caller = try await sessions.authenticate(request)
                } else {
                    // A token or API key: checked (a forged one stays 401), then refused for what it is.
                    _ = try await tokens.authenticate(request)
                    throw PlatformError.ownerRequired
                }
                try caller.requireInstanceOwner()
            }
            return try await handler(request, context, caller)
        }
    }

    func get(_ path: String, _ access: Access, use handler: @escaping AuthenticatedHandler) {
        on(.get, path, access, use: handler)
    }

    /// Registers a `GET` for partner tokens answered on the HTTP worker thread when it can be: the token is
    /// checked with ``TokenService/authenticateImmediately(_:)`` and `attempt` runs; either may decline (nil), and
    /// then the request takes the ordinary path to `handler`, which must answer the same
    /// (``InlineRoutes/on(_:_:body:attempt:otherwise:)``).
    func get(
        _ path: String, _ access: Access, attempt: @escaping AuthenticatedAttempt,
        use handler: @escaping AuthenticatedHandler
    ) {
        guard case .partner = access else { preconditionFailure("\(path): inline attempts take partner tokens only") }
        let fallback = authenticated(access, handler)
        builder.inline.on(
            .get, path,
            attempt: { [tokens] request, context in
                guard let caller = try tokens.authenticateImmediately(request) else { return nil }
                try caller.requirePartner()
                return try attempt(request, context, caller)
            }, otherwise: fallback)
    }
    func post(
        _ path: String, _ access: Access, body: BodyMode = .buffered(), use handler: @escaping AuthenticatedHandler
    ) {
        on(.post, path, access, body: body, use: handler)
    }
    func put(_ path: String, _ access: Access, use handler: @escaping AuthenticatedHandler) {
        on(.put, path, access, use: handler)
    }
    func patch(_ path: String, _ access: Access, use handler: @escaping AuthenticatedHandler) {
        on(.patch, path, access, use: handler)
    }
    func delete(_ path: String, _ access: Access, use handler: @escaping AuthenticatedHandler) {
        on(.delete, path, access, use: handler)
    }

    /// Registers a route whose URL is its own credential: the request must carry a valid, unexpired signature
    /// made by ``URLSigner/sign(_:_:lifetime:)`` for the same route and parameters (403 `FORBIDDEN` otherwise).
    /// The signature is checked on the request's head, before any body byte is read (``HeadCheck``): an unsigned
    /// or forged part `PUT` is refused without spooling its body.
    func signed(
        _ route: SignedRoute, body: BodyMode = .buffered(), use handler: @escaping Handler
    ) {
        builder.on(
            route.method, route.pattern.description, body: body,
            check: { [signer] request, context in
                try await signer.verify(route, parameters: context.parameters, query: request.query)
            }, use: handler)
    }

    /// Registers a route that needs no credential (it authenticates by its body, like the token endpoint).
    func open(_ method: HTTPMethod, _ path: String, body: BodyMode = .buffered(), use handler: @escaping Handler) {
        builder.on(method, path, body: body, use: handler)
    }
}

/// A route whose URL is its credential (presigned part uploads, downloads): one method on one path template, the
/// only spelling of that path — signed URLs are built from it and verified against it.
struct SignedRoute: Sendable {
    let method: HTTPMethod
    let pattern: PathPattern

    init(_ method: HTTPMethod, _ template: String) {
        self.method = method
        self.pattern = PathPattern(template)
    }

    /// `PUT` one part's bytes.
    static let uploadPart = SignedRoute(.put, APIPath.uploadPart)
    /// `GET` a file's bytes (with `Range`).
    static let fileDownload = SignedRoute(.get, APIPath.fileDownload)
}
