import EarshotAPI
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotServer

/// The accounts API: tenants, isolation of an account's records, cookie sessions with CSRF, devices, rate limits,
/// bad input, deletion. Accounts are made with `AccountAdministration` (as `earshot accounts create` does).
@Suite(.serialized) struct AccountsTests {
    static let password = "correct horse battery staple"

    static func account(
        _ platform: TestPlatform, _ email: String, tenant: String? = nil
    ) async throws -> String {
        try await AccountAdministration(configuration: platform.configuration).create(
            tenant: tenant, email: email, phone: nil, country: nil, password: password, nickname: nil
        ).id
    }

    static func signIn(
        _ platform: TestPlatform, _ email: String, tenant: String? = nil, cookie: Bool = false
    ) async throws -> (TestPlatform.HTTPResult, SignInResponse?) {
        var body: [String: Any] = ["email": email, "password": password]
        if let tenant { body["tenant"] = tenant }
        if cookie { body["session"] = "cookie" }
        let response = try await platform.send("POST", APIPath.accountSignIn, json: body)
        return (response, response.status == 200 ? try response.decode(SignInResponse.self) : nil)
    }

    @Test func anotherTenantsAccountCannotSignInHereAndPartnersChooseDirectSignIn() async throws {
        try await TestPlatform.with { platform in
            let partner = try await platform.createPartner("Acme")
            let partnerToken = try await platform.partnerToken(partner)
            // Off by default: Acme's users cannot sign in directly, so an account cannot be made to.
            let off = try await platform.send("GET", APIPath.partnerAccountSettings, token: partnerToken)
            #expect(off.object?["direct_sign_in"] as? Bool == false)
            _ = try await Self.account(platform, "ada@example.com", tenant: partner.clientID)
            let refused = try await Self.signIn(platform, "ada@example.com", tenant: partner.clientID).0
            #expect(refused.status == 403)
            #expect(refused.errorMessage.contains("does not let its users sign in here"))
            let on = try await platform.send(
                "PUT", APIPath.partnerAccountSettings, token: partnerToken, json: ["direct_sign_in": true])
            #expect(on.status == 200)
            let (ok, session) = try await Self.signIn(platform, "ada@example.com", tenant: partner.clientID)
            #expect(ok.status == 200, "\(ok.text)")
            #expect(session?.account.tenant == partner.clientID)
            // The same address in the default tenant is another account, which does not exist.
            let elsewhere = try await Self.signIn(platform, "ada@example.com").0
            #expect(elsewhere.status == 401)
            #expect(elsewhere.errorMessage == "wrong email or password")
            // Turning direct sign-in off ends the tenant's sessions at once.
            _ = try await platform.send(
                "PUT", APIPath.partnerAccountSettings, token: partnerToken, json: ["direct_sign_in": false])
            let ended = try await platform.send("GET", APIPath.accountMe, token: try #require(session?.sessionToken))
            #expect(ended.status == 401)
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func anAccountsTokenSeesOnlyItsOwnRecords(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let adaID = try await Self.account(platform, "ada@example.com")
            _ = try await Self.account(platform, "bob@example.com")
            let ada = try #require(try await Self.signIn(platform, "ada@example.com").1)
            let bob = try #require(try await Self.signIn(platform, "bob@example.com").1)
            let record = try await platform.createRecord(token: ada.accessToken)
            let loose = try await platform.upload(testContent(4096), token: ada.accessToken)
            #expect(record.record.userID == adaID)
            let adas = try await platform.send("GET", APIPath.records, token: ada.accessToken)
            #expect((adas.object?["records"] as? [Any])?.count == 1)
            let bobs = try await platform.send("GET", APIPath.records, token: bob.accessToken)
            #expect((bobs.object?["records"] as? [Any])?.count == 0)
            let peek = try await platform.send(
                "GET", platform.recordPath(APIPath.record, record.record.recordID), token: bob.accessToken)
            #expect(peek.status == 404)
            // A session token is not an access token: the record API refuses it.
            let sessionAsToken = try await platform.send(
                "GET", APIPath.records, token: ada.sessionToken)
            #expect(sessionAsToken.status == 401)

            let (device, _) = try await platform.bindDevice("ES1-ACCOUNT", token: ada.accessToken)
            #expect(device.userID == adaID)
            #expect(try await platform.startBind("ES1-ACCOUNT", token: bob.accessToken).errorCode == "BIND_OCCUPIED")

            // Deleting the account (with its password) deletes its records.
            let noConfirm = try await platform.send(
                "DELETE", APIPath.accountMe, token: ada.sessionToken,
                json: ["password": Self.password, "confirm": false])
            #expect(noConfirm.status == 400)
            #expect(noConfirm.errorMessage.hasPrefix("confirm: must be true"))
            let wrong = try await platform.send(
                "DELETE", APIPath.accountMe, token: ada.sessionToken,
                json: ["password": "nope nope nope", "confirm": true])
            #expect(wrong.status == 401)
            let deleted = try await platform.send(
                "DELETE", APIPath.accountMe, token: ada.sessionToken,
                json: ["password": Self.password, "confirm": true])
            #expect(deleted.status == 204, "\(deleted.text)")
            let gone = try await Self.signIn(platform, "ada@example.com").0
            #expect(gone.status == 401)
            let list = try await AccountAdministration(configuration: platform.configuration).list(tenant: nil)
            #expect(list.map(\.email) == ["bob@example.com"])
            #expect(
                try await platform.send(
                    "GET", platform.recordPath(APIPath.record, record.record.recordID), token: ada.accessToken
                ).status == 404)
            // Its device is free to bind for someone else.
            #expect(try await platform.startBind("ES1-ACCOUNT", token: bob.accessToken).status == 201)
            // The file no record held is gone too, bytes included.
            #expect(
                try await platform.send(
                    "GET", APIPath.filled(APIPath.file, ["file_id": loose.fileID]), token: ada.accessToken
                ).status == 404)
            let files = try await platform.blobFiles()
            #expect(files.isEmpty, "\(files)")
        }
    }

    @Test func cookieSessionsNeedTheirCSRFTokenToChangeAnything() async throws {
        try await TestPlatform.with { platform in
            _ = try await Self.account(platform, "ada@example.com")
            let (response, signedIn) = try await Self.signIn(platform, "ada@example.com", cookie: true)
            let body = try #require(signedIn)
            #expect(body.sessionToken == nil)
            let csrf = try #require(body.csrfToken)
            let setCookie = try #require(response.header("Set-Cookie"))
            #expect(setCookie.contains("earshot_session=est_"))
            #expect(setCookie.contains("HttpOnly"))
            #expect(setCookie.contains("SameSite=Strict"))
            let session = try #require(
                setCookie.split(separator: ";").first { $0.contains("earshot_session=") }
                    .map { String($0.split(separator: "=", maxSplits: 1)[1]) })
            let cookie = ["Cookie": "earshot_session=\(session)"]
            // Reading works with the cookie alone, on account and record routes.
            #expect(try await platform.send("GET", APIPath.accountMe, headers: cookie).status == 200)
            #expect(try await platform.send("GET", APIPath.records, headers: cookie).status == 200)
            // Changing anything needs X-CSRF-Token.
            let forged = try await platform.send(
                "PATCH", APIPath.accountMe, json: ["nickname": "Mallory"], headers: cookie)
            #expect(forged.status == 403)
            #expect(forged.errorMessage.contains("X-CSRF-Token"))
            let wrong = try await platform.send(
                "PATCH", APIPath.accountMe, json: ["nickname": "Mallory"],
                headers: cookie.merging(["X-CSRF-Token": "guess"]) { $1 })
            #expect(wrong.status == 403)
            let ok = try await platform.send(
                "PATCH", APIPath.accountMe, json: ["nickname": "Ada"],
                headers: cookie.merging(["X-CSRF-Token": csrf]) { $1 })
            #expect(ok.status == 200, "\(ok.text)")
            #expect(ok.object?["nickname"] as? String == "Ada")
            // A cookie session's token does not work as a bearer token.
            #expect(try await platform.send("GET", APIPath.accountMe, token: session).status == 401)
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func devicesAreListedAndSignedOutOneByOneOrEverywhere(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            _ = try await Self.account(platform, "ada@example.com")
            let phone = try #require(try await Self.signIn(platform, "ada@example.com").1?.sessionToken)
            let laptop = try #require(try await Self.signIn(platform, "ada@example.com").1)
            let tablet = try #require(try await Self.signIn(platform, "ada@example.com").1?.sessionToken)
            let list = try await platform.send("GET", APIPath.accountSessions, token: phone)
            let sessions = try list.decode(AccountSessionList.self).sessions
            #expect(sessions.count == 3)
            #expect(sessions.filter(\.current).count == 1)
            let revoke = try await platform.send(
                "DELETE", APIPath.filled(APIPath.accountSession, ["session_id": laptop.session.id]), token: phone)
            #expect(revoke.status == 204)
            #expect(try await platform.send("GET", APIPath.accountMe, token: laptop.sessionToken).status == 401)
            #expect(try await platform.send("GET", APIPath.accountMe, token: tablet).status == 200)
            // Changing the password keeps this device and signs the others out.
            let change = try await platform.send(
                "PUT", APIPath.accountPassword, token: phone,
                json: ["current_password": Self.password, "new_password": "another good passphrase"])
            #expect(change.status == 204, "\(change.text)")
            #expect(try await platform.send("GET", APIPath.accountMe, token: tablet).status == 401)
            #expect(try await platform.send("GET", APIPath.accountMe, token: phone).status == 200)
            let everywhere = try await platform.send("POST", APIPath.accountSignOutEverywhere, token: phone)
            #expect(everywhere.status == 204)
            #expect(try await platform.send("GET", APIPath.accountMe, token: phone).status == 401)
        }
    }

    @Test func rateLimitsAnswerRateLimitedWithRetryAfter() async throws {
        try await TestPlatform.with({
            $0.accounts.ipLimit = "5/1m"
            $0.accounts.addressLimit = "2/1h"
            $0.accounts.accountLimit = "2/1h"
        }) { platform in
            // Per account: token exchanges and password checks of one signed-in account.
            _ = try await Self.account(platform, "eve@example.com")
            let eve = try #require(try await Self.signIn(platform, "eve@example.com").1?.sessionToken)
            var exchanges: [Int] = []
            for _ in 0..<3 {
                exchanges.append(try await platform.send("POST", APIPath.accountToken, token: eve).status)
            }
            #expect(exchanges == [200, 200, 429])

            _ = try await Self.account(platform, "ada@example.com")
            var statuses: [Int] = []
            for _ in 0..<3 {
                statuses.append(
                    try await platform.send(
                        "POST", APIPath.accountSignIn, json: ["email": "ada@example.com", "password": "wrong wrong"]
                    ).status)
            }
            // Per address: two tries an hour, then 429 even with the right password.
            #expect(statuses == [401, 401, 429])
            let limited = try await Self.signIn(platform, "ada@example.com").0
            #expect(limited.status == 429)
            #expect(limited.errorCode == "RATE_LIMITED")
            let retryAfter = try #require(limited.header("Retry-After").flatMap(Int.init))
            #expect(retryAfter > 1000 && retryAfter <= 1800)
            // Per IP: the sixth sign-up, verify, code or sign-in request from this address in a minute is refused.
            let other = try await platform.send(
                "POST", APIPath.accountSignIn, json: ["email": "bob@example.com", "password": "wrong wrong"])
            #expect(other.status == 429)
            #expect(other.errorMessage.contains("from this IP"))
            #expect(Int(other.header("Retry-After") ?? "") ?? 0 >= 1)
        }
    }

    @Test func badInputNamesTheField() async throws {
        try await TestPlatform.with { platform in
            let cases: [([String: Any], String)] = [
                (["email": "ada.example.com", "password": Self.password], "email: 'ada.example.com' has no @"),
                (
                    ["email": "ada@ex\u{0430}mple.com", "password": Self.password],
                    "email: contains 'а' (U+0430 CYRILLIC SMALL LETTER A)"
                ),
                (["phone": "555-0123", "password": Self.password], "phone: '555-0123' must start with +"),
                (
                    ["phone": "+14155550123", "country": "ZZ", "password": Self.password],
                    "country: 'ZZ' is not an ISO 3166-1 alpha-2 country code"
                ),
                (["email": "ada@example.com", "password": "hunter2"], "password: is 7 characters long"),
                (["email": "ada@example.com", "password": "password123"], "password: is one of the most common"),
                (
                    ["email": "ada@example.com", "password": String(repeating: "x", count: 2000)],
                    "password: is 2000 bytes long; use at most 1024 bytes"
                ),
                (
                    ["email": "ada@example.com", "password": Self.password, "nickname": "A\u{202E}da"],
                    "nickname: contains the invisible character U+202E"
                ),
                (["password": Self.password], "email: give an email address, or a phone number"),
                (
                    ["email": "ada@example.com", "password": Self.password, "tenant": "acme"],
                    "tenant: 'acme' is not a partner id"
                ),
            ]
            for (body, message) in cases {
                let response = try await platform.send("POST", APIPath.accountSignUp, json: body)
                #expect(response.status == 400, "\(body): \(response.text)")
                #expect(response.errorCode == "INVALID_ARGUMENT")
                #expect(response.errorMessage.hasPrefix(message), "\(response.errorMessage)")
            }
            let session = try await platform.send(
                "POST", APIPath.accountSignIn,
                json: ["email": "ada@example.com", "password": Self.password, "session": "jwt"])
            #expect(session.errorMessage == "session: 'jwt' is not bearer or cookie")
        }
    }

    @Test func theCountryTableIsServedForPickers() async throws {
        try await TestPlatform.with { platform in
            let response = try await platform.send("GET", APIPath.accountCountries)
            #expect(response.status == 200)
            let countries = try response.decode(CountryList.self).countries
            #expect(countries.count > 240)
            #expect(countries.first { $0.code == "CN" }?.dialCode == "+86")
            #expect(countries.first { $0.code == "DE" }?.name == "Germany")
        }
    }
}
