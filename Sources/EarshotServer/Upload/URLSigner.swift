import EarshotAPI
import EarshotCrypto
import EarshotHTTP
import Foundation

/// Signs and verifies expiring URLs (presigned part uploads, downloads): no bearer token needed, the URL
/// itself is the credential for one method on one path until it expires.
///
/// The query is `expires=<unix seconds>&key=<kid>&tenant=<partner>&gen=<generation>&signature=<base64url
/// HMAC-SHA256>` over `METHOD \n path \n expires \n kid \n tenant \n gen`, where `path` is the API path
/// without any deployment prefix (so a proxy or `api-prefix` in front does not invalidate signatures).
/// Verification recomputes the MAC with the named ``Keyring`` key and compares in constant time *before* looking
/// at the expiry, so a changed `expires` is reported as tampering, not as expiry; then the partner must still be
/// active and in the generation the URL was issued in (disabling a partner revokes its URLs for good). URLs
/// issued before `tenant` and `gen` existed (no such fields) verify as before, until they expire.
struct URLSigner: Sendable {
    /// Who a URL is issued for: the partner (tenant) and its generation (``Partner/generation``).
    struct Issuer: Sendable, Hashable {
        let partnerID: String
        let generation: Int
    }

    let keyring: Keyring
    /// Where the issuer's status and generation are checked.
    let partners: PartnerDirectory
    var now: @Sendable () -> Date = Date.init

    /// The path of `route` with `parameters`, and the query string (without `?`) authorising it for `lifetime`.
    func sign(
        _ route: SignedRoute, _ parameters: [String: String], lifetime: Duration, for issuer: Issuer
    ) async throws -> (path: String, query: String) {
        let path = route.pattern.expand(parameters)
        return (path, try await sign(method: route.method, path: path, lifetime: lifetime, issuer: issuer))
    }

    /// Throws 403 `FORBIDDEN` unless `query` carries a valid, unexpired signature for `route` with `parameters`.
    func verify(_ route: SignedRoute, parameters: Parameters, query: QueryParameters) async throws {
        let values = Dictionary(uniqueKeysWithValues: route.pattern.parameterNames.map { ($0, parameters[$0] ?? "") })
        try await verify(method: route.method, path: route.pattern.expand(values), query: query)
    }

    /// The query string (without `?`) authorising `method` on `path` for `lifetime`.
    private func sign(method: HTTPMethod, path: String, lifetime: Duration, issuer: Issuer) async throws -> String {
        let key = try await keyring.current(.url)
        let expires = Int64(now().timeIntervalSince1970.rounded(.down)) + lifetime.components.seconds
        let mac = Self.mac(
            method: method, path: path, expires: expires, kid: key.kid, issuer: issuer, key: key.signer)
        return "expires=\(expires)&key=\(key.kid)&tenant=\(issuer.partnerID)&gen=\(issuer.generation)&signature=\(mac)"
    }

    /// Throws 403 `FORBIDDEN` unless `query` carries a valid, unexpired signature for `method` on `path`.
    private func verify(method: HTTPMethod, path: String, query: QueryParameters) async throws {
        guard let expiresText = query["expires"], let kid = query["key"], let signature = query["signature"] else {
            throw PlatformError.forbidden(
                "this URL is not signed (expires, key and signature are required); use the URL exactly as the API "
                    + "returned it")
        }
        let tampered = PlatformError.forbidden(
            "URL signature does not match: the URL was altered or its signing key was retired; use the URL exactly "
                + "as the API returned it, or ask for a new one")
        var issuer: Issuer?
        if let tenant = query["tenant"] {
            guard let generation = query["gen"].flatMap({ Int($0) }) else { throw tampered }
            issuer = Issuer(partnerID: tenant, generation: generation)
        }
        guard let expires = Int64(expiresText), let key = try await keyring.key(kid, purpose: .url) else {
            throw tampered
        }
        let expected = Self.mac(
            method: method, path: path, expires: expires, kid: kid, issuer: issuer, key: key.signer)
        guard let given = Base64URL.decode(signature), let wanted = Base64URL.decode(expected),
            ConstantTime.equals(given, wanted)
        else { throw tampered }
        guard Int64(now().timeIntervalSince1970) <= expires else {
            let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(expires)))
            throw PlatformError.forbidden(
                "URL expired at \(when); ask for a new one (GET \(APIPath.uploadParts) returns fresh part URLs, "
                    + "GET \(APIPath.file) a fresh download URL)")
        }
        if let issuer {
            guard let partner = try await partners.partner(issuer.partnerID), partner.isActive,
                partner.generation == issuer.generation
            else {
                throw PlatformError.forbidden(
                    "URL revoked: its partner was disabled after it was issued; ask for a new one")
            }
        }
    }

    /// The signature, with the key's prepared HMAC (as tokens are signed); without an `issuer`, the form of URLs
    /// issued before issuers were signed.
    static func mac(
        method: HTTPMethod, path: String, expires: Int64, kid: String, issuer: Issuer? = nil, key: HMAC.PreparedKey
    ) -> String {
        var canonical = "\(method.rawValue)\n\(path)\n\(expires)\n\(kid)"
        if let issuer { canonical += "\n\(issuer.partnerID)\n\(issuer.generation)" }
        return Base64URL.encode(key.authenticationCode(Array(canonical.utf8)).bytes)
    }
}
