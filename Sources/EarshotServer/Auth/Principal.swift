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
    /// The token id (`jti`), for logs.
    let tokenID: String
    /// The partner's generation the token carries (a user token made from it carries the same).
    var generation = 1

    var isPartner: Bool { userID == nil }

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

    /// Throws 403 `FORBIDDEN` unless the token carries `scope` (partner tokens carry every scope).
    func require(_ scope: Scope) throws(PlatformError) {
        guard isPartner || scopes.contains(scope.rawValue) else {
            throw .forbidden("this token lacks the \"\(scope.rawValue)\" scope")
        }
    }
}
