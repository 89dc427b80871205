/// The authenticated caller of a request: a partner, or one of a partner's users.
///
/// Every query a handler makes filters by ``partnerID`` (the tenant); user principals also filter by ``userID``.
struct Principal: Sendable, Equatable {
    /// The tenant.
    let partnerID: String
    /// The partner's user, for user tokens; nil for partner tokens.
    let userID: String?
    /// What the token may do.
    let scopes: Set<String>
    /// The token id (`jti`) or API key id, for logs.
    let tokenID: String
    /// The partner's generation the token carries (a user token made from it carries the same).
    var generation = 1
    /// An account session of the instance owner (``Access/owner``); never true for a token or an API key.
    var isInstanceOwner = false

    /// A partner token, or an API key of the partner with the `partner` scope (a partner key with narrower scopes
    /// reaches every user's data, but only the routes its scopes open).
    var isPartner: Bool { userID == nil && scopes.contains(Scope.partner.rawValue) }

    /// Who the signed URLs made for this caller are issued for.
    var issuer: URLSigner.Issuer { URLSigner.Issuer(partnerID: partnerID, generation: generation) }

    /// Throws 403 `FORBIDDEN` unless this is a partner token.
    func requirePartner() throws(PlatformError) {
        guard isPartner else {
            throw .forbidden(
                "this needs a partner token; a user token only works on its own user's files, records and "
                    + "voiceprints")
        }
    }

    /// Throws 403 `OWNER_REQUIRED` unless this is the instance owner's account session.
    func requireInstanceOwner() throws(PlatformError) {
        guard isInstanceOwner else { throw .ownerRequired }
    }

    /// Throws 403 `FORBIDDEN` unless the token carries `scope` (partner tokens carry every scope).
    func require(_ scope: Scope) throws(PlatformError) {
        guard isPartner || scopes.contains(scope.rawValue) else {
            throw .forbidden("this token lacks the \"\(scope.rawValue)\" scope")
        }
    }
}
