import EarshotAPI
import EarshotCrypto
import EarshotHTTP
import Foundation
import Testing

@testable import EarshotServer

/// Partner and user tokens over HTTP: issuing, and every way a token can be wrong (all 401 `UNAUTHORIZED`).
@Suite struct TokenTests {
    @Test func clientCredentialsGiveAPartnerTokenAndItGivesUserTokens() async throws {
        try await TestPlatform.with { platform in
            let partner = try await platform.createPartner()
            let response = try await platform.send(
                "POST", APIPath.partnerToken,
                json: ["client_id": partner.clientID, "client_secret": partner.clientSecret])
            #expect(response.status == 200)
            #expect(response.header("Cache-Control") == "no-store")
            let token = try response.decode(TokenResponse.self)
            #expect(token.tokenType == "bearer")
            #expect(token.expiresIn == 7200)

            // The seed's shape, decoded the way its TokenClient does.
            let user = try await platform.send(
                "POST", APIPath.userToken, token: token.accessToken, json: ["user_id": "app-user-42"])
            #expect(user.status == 200)
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            struct SeedTokenResponse: Decodable { let accessToken: String; let tokenType: String; let expiresIn: Int }
            let seed = try decoder.decode(SeedTokenResponse.self, from: user.data)
            #expect(seed.tokenType == "bearer")
            #expect(seed.expiresIn == 86400)

            // A requested TTL is honoured below the cap and capped above it.
            let short = try await platform.send(
                "POST", APIPath.userToken, token: token.accessToken, json: ["user_id": "u", "ttl_seconds": 600])
            #expect(try short.decode(TokenResponse.self).expiresIn == 600)
            let long = try await platform.send(
                "POST", APIPath.userToken, token: token.accessToken, json: ["user_id": "u", "ttl_seconds": 10_000_000])
            #expect(try long.decode(TokenResponse.self).expiresIn == 86400)
            let zero = try await platform.send(
                "POST", APIPath.userToken, token: token.accessToken, json: ["user_id": "u", "ttl_seconds": 0])
            #expect(zero.status == 400)
            let badUser = try await platform.send(
                "POST", APIPath.userToken, token: token.accessToken, json: ["user_id": "a/b"])
            #expect(badUser.status == 400)
            #expect(badUser.errorMessage.contains("user_id"))
        }
    }

    @Test func wrongCredentialsAreUnauthorizedAlike() async throws {
        try await TestPlatform.with { platform in
            let partner = try await platform.createPartner()
            let attempts: [[String: String]] = [
                ["client_id": partner.clientID, "client_secret": partner.clientSecret + "x"],
                ["client_id": "ptn_00000000000000000000", "client_secret": partner.clientSecret],
                ["client_id": "not an id", "client_secret": "x"],
            ]
            for body in attempts {
                let response = try await platform.send("POST", APIPath.partnerToken, json: body)
                #expect(response.status == 401)
                #expect(response.errorCode == "UNAUTHORIZED")
                #expect(response.errorMessage == "invalid client credentials")
            }
            let malformed = try await platform.send("POST", APIPath.partnerToken, body: Data("{not json".utf8))
            #expect(malformed.status == 400)
            #expect(malformed.errorCode == "INVALID_ARGUMENT")
            let missing = try await platform.send("POST", APIPath.partnerToken, json: ["client_id": partner.clientID])
            #expect(missing.status == 400)
            #expect(missing.errorMessage.contains("client_secret"))
        }
    }

    @Test func aUserTokenCannotDoPartnerOnlyCalls() async throws {
        try await TestPlatform.with { platform in
            let (_, _, userToken) = try await platform.newUser()
            let response = try await platform.send(
                "POST", APIPath.userToken, token: userToken, json: ["user_id": "other"])
            #expect(response.status == 403)
            #expect(response.errorCode == "FORBIDDEN")
            #expect(response.errorMessage.contains("needs a partner token"))
        }
    }

    /// Tokens forged or altered every way the issue lists, each refused with 401 and a message naming why.
    @Test func forgedExpiredAndTamperedTokensAreRejected() async throws {
        try await TestPlatform.with { platform in
            let (partner, partnerToken, _) = try await platform.newUser()
            let key = try await platform.signingKey(.token)
            let now = Int64(Date().timeIntervalSince1970)
            func claims(iat: Int64 = now, nbf: Int64 = now, exp: Int64 = now + 600, iss: String = "earshot") -> [UInt8]
            {
                let claims = TokenClaims(
                    iss: iss, sub: partner.clientID, partner: partner.clientID, kind: .partner, scope: "partner",
                    iat: iat, nbf: nbf, exp: exp, jti: "tok_test")
                return Array(try! JSONEncoder().encode(claims))
            }
            func signed(_ payload: [UInt8], kid: String? = key.kid, secret: [UInt8] = key.secret) -> String {
                JWT.sign(header: .init(alg: "HS256", typ: "JWT", kid: kid), payload: payload, key: secret)
            }
            // Control: a token signed the same way with the real key works.
            let good = try await platform.send(
                "POST", APIPath.userToken, token: signed(claims()), json: ["user_id": "u"])
            #expect(good.status == 200, "\(good.text)")

            let segments = partnerToken.split(separator: ".").map(String.init)
            var payload = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(segments[1])!)) as! [String: Any]
            payload["exp"] = (payload["exp"] as! Int) + 100_000
            let tampered =
                segments[0] + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: payload)) + "."
                + segments[2]
            let none =
                Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(claims()) + "."

            let cases: [(String, String, String)] = [
                ("expired", signed(claims(iat: now - 7200, nbf: now - 7200, exp: now - 3600)), "token expired"),
                ("not yet valid", signed(claims(nbf: now + 3600, exp: now + 7200)), "not valid before"),
                ("wrong kid", signed(claims(), kid: "key_00000000000000000000"), "is not known"),
                ("no kid", signed(claims(), kid: nil), "is not known"),
                ("forged key", signed(claims(), secret: Array(repeating: 1, count: 32)), "signature does not match"),
                ("alg none", none, "\"none\" is not accepted"),
                ("tampered payload", tampered, "signature does not match"),
                ("other issuer", signed(claims(iss: "someone-else")), "issuer"),
                ("garbage", "not-a-token", "malformed"),
            ]
            for (name, token, message) in cases {
                let response = try await platform.send(
                    "POST", APIPath.userToken, token: token, json: ["user_id": "u"])
                #expect(response.status == 401, "\(name)")
                #expect(response.errorCode == "UNAUTHORIZED", "\(name)")
                #expect(response.errorMessage.contains(message), "\(name): \(response.errorMessage)")
                #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true, "\(name)")
            }

            // Within the clock-skew leeway (30 s) is still fine.
            let skewed = try await platform.send(
                "POST", APIPath.userToken, token: signed(claims(nbf: now + 10, exp: now + 600)), json: ["user_id": "u"])
            #expect(skewed.status == 200)

            for header in [nil, "Basic abc", "Bearer"] {
                let response = try await platform.send(
                    "POST", APIPath.userToken, json: ["user_id": "u"],
                    headers: header.map { ["Authorization": $0] } ?? [:])
                #expect(response.status == 401)
                #expect(response.errorMessage.contains("Authorization"))
            }
        }
    }

    @Test func disablingAPartnerStopsItsTokensAtOnce() async throws {
        try await TestPlatform.with { platform in
            let (partner, partnerToken, userToken) = try await platform.newUser()
            try await PartnerAdministration(configuration: platform.configuration).setStatus(
                partner.clientID, active: false)
            for token in [partnerToken, userToken] {
                let response = try await platform.send(
                    "POST", APIPath.generatePresignedURLs, token: token, json: ["filesize": 10, "filetype": "wav"])
                #expect(response.status == 401)
                #expect(response.errorMessage.contains("disabled"))
            }
            let again = try await platform.send(
                "POST", APIPath.partnerToken,
                json: ["client_id": partner.clientID, "client_secret": partner.clientSecret])
            #expect(again.status == 401)
        }
    }
}

/// Key rotation: the new key signs, old keys keep verifying until their retention has passed.
@Suite struct BearerHeaderTests {
    /// `Authorization: Bearer <token>`: the scheme in any case, spaces and tabs around the token; anything else is
    /// a 401 naming the header.
    @Test func theCredentialIsReadFromABearerHeaderOnly() throws {
        func credential(_ header: String) throws -> String {
            try TokenService.bearer(
                Request(method: .get, path: "/", headers: HTTPHeaders([("Authorization", header)])))
        }
        #expect(try credential("Bearer abc.def.ghi") == "abc.def.ghi")
        #expect(try credential("bearer abc") == "abc")
        #expect(try credential("BEARER   abc \t") == "abc")
        #expect(try credential("  BeArEr abc") == "abc")
        for refused in ["Bearer", "Bearer   ", "Bearerabc", "Basic abc", "Bearer_ abc", "Beärer abc", "Bear abc", ""] {
            #expect(throws: PlatformError.self, "\(refused)") { try credential(refused) }
        }
        #expect(throws: PlatformError.self) { try TokenService.bearer(Request(method: .get, path: "/")) }
    }
}

@Suite struct KeyRotationTests {
    @Test func rotatedKeysKeepVerifyingUntilRetentionThenDisappear() async throws {
        try await TestPlatform.with { platform in
            let store = try await Application.openMetadataStore(platform.configuration)
            let clock = TestClock()
            let keyring = Keyring(
                metadata: store, configuration: .init(rotationInterval: .seconds(3600), retention: .seconds(600)),
                now: { clock.now })
            let first = try await keyring.current(.token)
            #expect(try await keyring.current(.token) == first)

            // Not yet due: nothing changes.
            clock.advance(by: 1800)
            try await keyring.maintain()
            #expect(try await keyring.current(.token).kid == first.kid)

            // Due: a new key signs; the old one still verifies.
            clock.advance(by: 1801)
            try await keyring.maintain()
            let second = try await keyring.current(.token)
            #expect(second.kid != first.kid)
            #expect(try await keyring.key(first.kid, purpose: .token)?.secret == first.secret)

            // Retention over: the old key is deleted; tokens it signed no longer verify.
            clock.advance(by: 601)
            try await keyring.maintain()
            #expect(try await keyring.key(first.kid, purpose: .token) == nil)
            #expect(try await keyring.key(second.kid, purpose: .token) != nil)
            // Keys are per purpose.
            #expect(try await keyring.key(second.kid, purpose: .url) == nil)
            await store.close()
        }
    }

    @Test func aRotationByAnotherProcessIsPickedUpAndOldTokensStillWork() async throws {
        try await TestPlatform.with { platform in
            let (partner, partnerToken, _) = try await platform.newUser()
            let store = try await Application.openMetadataStore(platform.configuration)
            let rotated = try await Keyring(metadata: store, configuration: .init()).rotate(.token)
            await store.close()
            // The token signed before the rotation verifies with the retired key.
            let old = try await platform.send("POST", APIPath.userToken, token: partnerToken, json: ["user_id": "u"])
            #expect(old.status == 200)
            // A token under the new kid, unknown to the server's cache, is looked up in the store and accepted.
            let now = Int64(Date().timeIntervalSince1970)
            let claims = TokenClaims(
                iss: "earshot", sub: partner.clientID, partner: partner.clientID, kind: .partner, scope: "partner",
                iat: now, nbf: now, exp: now + 60, jti: "tok_rotated")
            let token = JWT.sign(
                header: .init(alg: "HS256", typ: "JWT", kid: rotated.kid),
                payload: Array(try JSONEncoder().encode(claims)), key: rotated.secret)
            let fresh = try await platform.send("POST", APIPath.userToken, token: token, json: ["user_id": "u"])
            #expect(fresh.status == 200, "\(fresh.text)")
        }
    }
}

/// A clock tests move by hand.
final class TestClock: @unchecked Sendable {
    // SAFETY: `lock` guards `current`.
    private let lock = NSLock()
    private var current = Date()

    var now: Date { lock.withLock { current } }
    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}
