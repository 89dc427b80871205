import EarshotAPI
import EarshotAccounts
import Foundation
import Testing

@testable import EarshotServer

/// The admin API (`/open/admin/…`) and the instance owner who alone may call it: the owner's session (bearer or the
/// console's cookie with its CSRF token) is served; another account, an account of another tenant whose row claims
/// the role, partner and user tokens, a forged, expired or signed-out session are refused. Then what the owner
/// does with it: partners and their secrets, webhook deliveries of every partner and redelivery, the overview.
@Suite(.serialized) struct AdminTests {
    static let password = "correct horse battery staple"

    /// An active account of `tenant` (the default tenant when nil), the owner when `owner`.
    static func account(
        _ platform: TestPlatform, _ email: String, tenant: String? = nil, owner: Bool = false
    ) async throws -> String {
        let administration = AccountAdministration(configuration: platform.configuration)
        let account = try await administration.create(
            tenant: tenant, email: email, phone: nil, country: nil, password: password, nickname: nil)
        if owner { try await administration.setOwner(account.id, true) }
        return account.id
    }

    /// A bearer session of `email`.
    static func session(_ platform: TestPlatform, _ email: String, tenant: String? = nil) async throws -> String {
        try #require(try await signIn(platform, email, tenant: tenant).sessionToken)
    }

    static func signIn(_ platform: TestPlatform, _ email: String, tenant: String? = nil) async throws
        -> SignInResponse
    {
        var body: [String: Any] = ["email": email, "password": password]
        if let tenant { body["tenant"] = tenant }
        let response = try await platform.send("POST", APIPath.accountSignIn, json: body)
        try #require(response.status == 200, "\(response.text)")
        return try response.decode(SignInResponse.self)
    }

    static func path(_ template: String, _ partnerID: String) -> String {
        APIPath.filled(template, ["partner_id": partnerID])
    }

    @Test func onlyTheInstanceOwnersSessionReachesTheAdminAPI() async throws {
        try await TestPlatform.with { platform in
            let adaID = try await Self.account(platform, "ada@example.com", owner: true)
            _ = try await Self.account(platform, "bob@example.com")
            let (acme, partnerToken, userToken) = try await platform.newUser("user-1", partner: "Acme")
            _ = try await platform.send(
                "PUT", APIPath.partnerAccountSettings, token: partnerToken, json: ["direct_sign_in": true])
            // An account of another tenant whose row says owner (no command grants that): still not an owner.
            let eveID = try await Self.account(platform, "eve@example.com", tenant: acme.clientID)
            let store = try await platform.openStore()
            try await store.write { db in _ = try db.execute("UPDATE accounts SET role = 'owner' WHERE id = ?", eveID) }
            let ada = try await Self.session(platform, "ada@example.com")
            let bob = try await Self.session(platform, "bob@example.com")
            let eve = try await Self.session(platform, "eve@example.com", tenant: acme.clientID)
            let lapsing = try await Self.signIn(platform, "ada@example.com")
            let expired = try #require(lapsing.sessionToken)
            try await store.write { db in
                _ = try db.execute("UPDATE account_sessions SET expires_at = 1 WHERE id = ?", lapsing.session.id)
            }
            let signedOut = try await Self.session(platform, "ada@example.com")
            #expect(try await platform.send("POST", APIPath.accountSignOut, token: signedOut).status == 204)
            await store.close()

            // The profile tells the console who owns the instance.
            let me = try await platform.send("GET", APIPath.accountMe, token: ada)
            #expect(me.object?["instance_owner"] as? Bool == true, "\(me.text)")
            #expect(
                try await platform.send("GET", APIPath.accountMe, token: bob).object?["instance_owner"] as? Bool
                    == false)
            #expect(
                try await platform.send("GET", APIPath.accountMe, token: eve).object?["instance_owner"] as? Bool
                    == false)

            let reads = [APIPath.adminPartners, APIPath.adminOverview, APIPath.adminWebhookDeliveries]
            for path in reads {
                let ok = try await platform.send("GET", path, token: ada)
                #expect(ok.status == 200, "\(path): \(ok.text)")
                for (who, token) in [
                    ("another account", bob), ("another tenant's account", eve), ("a partner token", partnerToken),
                    ("a user token", userToken),
                ] {
                    let refused = try await platform.send("GET", path, token: token)
                    #expect(
                        refused.status == 403 && refused.errorCode == "OWNER_REQUIRED",
                        "\(who) on \(path): \(refused.text)")
                    #expect(refused.errorMessage.contains("earshot accounts grant-owner"))
                }
                for (who, token) in [
                    ("a forged session", "est_" + String(repeating: "A", count: 43)), ("an expired session", expired),
                    ("a signed-out session", signedOut), ("a forged token", "eyJhbGciOiJIUzI1NiJ9.e30.c2ln"),
                    ("nothing", nil),
                ] {
                    let refused = try await platform.send("GET", path, token: token)
                    #expect(
                        refused.status == 401 && refused.errorCode == "UNAUTHORIZED",
                        "\(who) on \(path): \(refused.text)")
                }
            }
            // Changes are refused the same way, before their body is looked at.
            let create = try await platform.send("POST", APIPath.adminPartners, token: bob, json: ["name": "Mallory"])
            #expect(create.status == 403 && create.errorCode == "OWNER_REQUIRED")
            let disable = try await platform.send(
                "PATCH", Self.path(APIPath.adminPartner, acme.clientID), token: partnerToken,
                json: ["status": "disabled"])
            #expect(disable.status == 403 && disable.errorCode == "OWNER_REQUIRED")
            #expect(try await platform.partnerToken(acme).isEmpty == false)

            // The role is read on every request: revoked, the same session is refused at once.
            try await AccountAdministration(configuration: platform.configuration).setOwner(adaID, false)
            #expect(try await platform.send("GET", APIPath.adminPartners, token: ada).errorCode == "OWNER_REQUIRED")
            try await AccountAdministration(configuration: platform.configuration).setOwner(adaID, true)
            // Only accounts of the default tenant can be granted it.
            await #expect(throws: AccountError.self) {
                try await AccountAdministration(configuration: platform.configuration).setOwner(eveID, true)
            }

            // The console's cookie session: reads with the cookie, changes only with its CSRF token.
            let signIn = try await platform.send(
                "POST", APIPath.accountSignIn,
                json: ["email": "ada@example.com", "password": Self.password, "session": "cookie"])
            let csrf = try #require(try signIn.decode(SignInResponse.self).csrfToken)
            let cookie = try #require(
                signIn.header("Set-Cookie")?.split(separator: ";").first { $0.contains("earshot_session=") }
            ).trimmingCharacters(in: .whitespaces)
            #expect(try await platform.send("GET", APIPath.adminPartners, headers: ["Cookie": cookie]).status == 200)
            let noCSRF = try await platform.send(
                "POST", APIPath.adminPartners, json: ["name": "Globex"], headers: ["Cookie": cookie])
            #expect(noCSRF.status == 403 && noCSRF.errorCode == "FORBIDDEN", "\(noCSRF.text)")
            let withCSRF = try await platform.send(
                "POST", APIPath.adminPartners, json: ["name": "Globex"],
                headers: ["Cookie": cookie, "X-CSRF-Token": csrf])
            #expect(withCSRF.status == 201, "\(withCSRF.text)")
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func theOwnerCreatesDisablesAndRotatesPartners(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            _ = try await Self.account(platform, "ada@example.com", owner: true)
            let ada = try await Self.session(platform, "ada@example.com")
            let created = try await platform.send(
                "POST", APIPath.adminPartners, token: ada, json: ["name": "<script>alert(1)</script> Acme"])
            #expect(created.status == 201, "\(created.text)")
            let credentials = try created.decode(AdminPartnerCredentials.self)
            #expect(credentials.partner.name == "<script>alert(1)</script> Acme")
            #expect(credentials.clientSecret.hasPrefix("sk_") && credentials.partner.status == "active")
            let first = PartnerCredentials(
                partner: Partner(
                    id: credentials.clientID, name: "Acme", status: "active", createdAt: 0, generation: 1),
                clientSecret: credentials.clientSecret)
            let token = try await platform.partnerToken(first)
            // The list shows every partner, the default tenant first; the secret is never listed.
            let list = try await platform.send("GET", APIPath.adminPartners, token: ada)
            let partners = try list.decode(AdminPartnerList.self).partners
            #expect(partners.map(\.partnerID) == [AccountDirectory.defaultTenant, credentials.clientID])
            #expect(partners[0].defaultTenant && partners[0].directSignIn && partners[0].accounts == 1)
            #expect(!list.text.contains(credentials.clientSecret))

            // Rotation with an overlap: both secrets work until it ends; without one the old secret stops at once.
            let rotated = try await platform.send(
                "POST", Self.path(APIPath.adminPartnerRotateSecret, credentials.clientID), token: ada,
                json: ["overlap_seconds": 3600])
            #expect(rotated.status == 200, "\(rotated.text)")
            let second = try rotated.decode(AdminPartnerCredentials.self)
            #expect(second.clientSecret != credentials.clientSecret)
            #expect((second.partner.previousSecretExpiresAtMs ?? 0) > Int64(Date().timeIntervalSince1970 * 1000))
            let tokenRequest = { (secret: String) in
                try await platform.send(
                    "POST", APIPath.partnerToken, json: ["client_id": credentials.clientID, "client_secret": secret])
            }
            #expect(try await tokenRequest(credentials.clientSecret).status == 200)
            #expect(try await tokenRequest(second.clientSecret).status == 200)
            let third = try await platform.send(
                "POST", Self.path(APIPath.adminPartnerRotateSecret, credentials.clientID), token: ada,
                json: ["overlap_seconds": 0]
            ).decode(AdminPartnerCredentials.self)
            #expect(try await tokenRequest(second.clientSecret).status == 401)
            #expect(try await tokenRequest(third.clientSecret).status == 200)
            let tooLong = try await platform.send(
                "POST", Self.path(APIPath.adminPartnerRotateSecret, credentials.clientID), token: ada,
                json: ["overlap_seconds": 90 * 86_400])
            #expect(tooLong.status == 400 && tooLong.errorMessage.contains("overlap_seconds"))

            // Disabling revokes the partner's tokens for good; enabling lets it get new ones.
            let disabled = try await platform.send(
                "PATCH", Self.path(APIPath.adminPartner, credentials.clientID), token: ada,
                json: ["status": "disabled"])
            #expect(try disabled.decode(AdminPartner.self).status == "disabled")
            #expect(try await platform.send("GET", APIPath.webhookSecret, token: token).status == 401)
            #expect(try await tokenRequest(third.clientSecret).status == 401)
            let enabled = try await platform.send(
                "PATCH", Self.path(APIPath.adminPartner, credentials.clientID), token: ada, json: ["status": "active"])
            #expect(try enabled.decode(AdminPartner.self).generation == 2)
            #expect(try await platform.send("GET", APIPath.webhookSecret, token: token).status == 401)
            let fresh = try await tokenRequest(third.clientSecret)
            let freshToken = try #require(fresh.object?["access_token"] as? String)

            // The webhook secret the owner reads is the one the partner signs with.
            let secret = try await platform.send(
                "GET", Self.path(APIPath.adminPartnerWebhookSecret, credentials.clientID), token: ada)
            let own = try await platform.send("GET", APIPath.webhookSecret, token: freshToken)
            #expect(secret.status == 200 && secret.object?["secret"] as? String == own.object?["secret"] as? String)

            // The default tenant holds the owner's own account: never disabled, never given a secret here.
            let lockout = try await platform.send(
                "PATCH", Self.path(APIPath.adminPartner, AccountDirectory.defaultTenant), token: ada,
                json: ["status": "disabled"])
            #expect(lockout.status == 409 && lockout.errorMessage.contains("default tenant"))
            let defaultSecret = try await platform.send(
                "POST", Self.path(APIPath.adminPartnerRotateSecret, AccountDirectory.defaultTenant), token: ada,
                json: [:])
            #expect(defaultSecret.status == 409)
            // Bad input and unknown partners.
            let bad = try await platform.send(
                "PATCH", Self.path(APIPath.adminPartner, credentials.clientID), token: ada, json: ["status": "gone"])
            #expect(bad.status == 400 && bad.errorMessage.contains("active or disabled"))
            let unknown = try await platform.send(
                "PATCH", Self.path(APIPath.adminPartner, "ptn_nosuchpartner00000"), token: ada,
                json: ["status": "disabled"])
            #expect(unknown.status == 404)
            #expect(
                try await platform.send("POST", APIPath.adminPartners, token: ada, json: ["name": "  "]).status == 400)
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func theOwnerSeesEveryPartnersDeliveriesAndRedeliversOne(backend: ServerTestBackend) async throws {
        let receiver = WebhookTests.Receiver(statuses: [200])
        try await receiver.run { url in
            try await TestPlatform.with(backend: backend, WebhookTests.fast) { platform in
                _ = try await Self.account(platform, "ada@example.com", owner: true)
                let ada = try await Self.session(platform, "ada@example.com")
                let (acme, token, _) = try await platform.newUser("u1", partner: "Acme")
                let file = try await platform.upload(testContent(1000), token: token)
                let task = try await platform.createTask(
                    ["file_url": file.fileID, "model": "asr-fast", "callback_url": url, "user_id": "u1"], token: token
                ).decode(TranscriptionTask.self)
                // Revoking the queued task makes it final: that is the event.
                _ = try await platform.send("POST", "/open/partner/transcriptions/\(task.taskID)/revoke", token: token)
                try await receiver.wait(for: 1)
                var deliveries: [AdminWebhookDelivery] = []
                for _ in 0..<100 {
                    deliveries = try await platform.send("GET", APIPath.adminWebhookDeliveries, token: ada)
                        .decode(AdminWebhookDeliveryList.self).deliveries
                    if deliveries.first?.state == "delivered" { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                let delivered = try #require(deliveries.first)
                #expect(deliveries.count == 1)
                #expect(delivered.state == "delivered" && delivered.partnerID == acme.clientID)
                #expect(delivered.taskID == task.taskID && delivered.event == "transcription.revoked")
                #expect(delivered.lastAttempt?.status == 200 && delivered.attempts == 1)

                let again = try await platform.send(
                    "POST", APIPath.filled(APIPath.adminWebhookRedeliver, ["delivery_id": delivered.deliveryID]),
                    token: ada)
                #expect(again.status == 202, "\(again.text)")
                try await receiver.wait(for: 2)
                #expect(receiver.all[1].body == receiver.all[0].body)
                let both = try await platform.send("GET", APIPath.adminWebhookDeliveries, token: ada)
                    .decode(AdminWebhookDeliveryList.self).deliveries
                #expect(both.count == 2 && both[1].deliveryID == delivered.deliveryID, "newest first: \(both)")

                // Filters: by partner and by state.
                let none = try await platform.send(
                    "GET", APIPath.adminWebhookDeliveries + "?partner_id=\(AccountDirectory.defaultTenant)", token: ada)
                #expect(try none.decode(AdminWebhookDeliveryList.self).deliveries.isEmpty)
                let failed = try await platform.send(
                    "GET", APIPath.adminWebhookDeliveries + "?state=failed", token: ada)
                #expect(try failed.decode(AdminWebhookDeliveryList.self).deliveries.isEmpty)
                let badState = try await platform.send(
                    "GET", APIPath.adminWebhookDeliveries + "?state=lost", token: ada)
                #expect(badState.status == 400 && badState.errorMessage.contains("pending, delivered or failed"))
                let unknown = try await platform.send(
                    "POST", APIPath.filled(APIPath.adminWebhookRedeliver, ["delivery_id": "whd_nosuchdelivery000"]),
                    token: ada)
                #expect(unknown.status == 404)
            }
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func theOverviewShowsReadinessRequestsAndTheQueue(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend, { $0.workers = 0 }) { platform in
            _ = try await Self.account(platform, "ada@example.com", owner: true)
            let ada = try await Self.session(platform, "ada@example.com")
            let (_, token, _) = try await platform.newUser("u1", partner: "Acme")
            let file = try await platform.upload(testContent(1000), token: token)
            for _ in 0..<2 {
                let task = try await platform.createTask(
                    ["file_url": file.fileID, "model": "asr-fast", "user_id": "u1"], token: token)
                try #require(task.status == 201, "\(task.text)")
            }
            _ = try await platform.send("GET", "/open/partner/records/rec_nosuchrecord0000000", token: token)
            let response = try await platform.send("GET", APIPath.adminOverview, token: ada)
            #expect(response.status == 200, "\(response.text)")
            let overview = try response.decode(AdminOverview.self)
            #expect(overview.status == "ready")
            #expect(overview.checks.map(\.name) == ["metadata", "blobs", "disk"] && overview.checks.allSatisfy(\.ok))
            let transcriptions = try #require(overview.jobs.first { $0.kind == "transcription" }, "\(overview.jobs)")
            #expect(transcriptions.queued == 2 && overview.queueDepth >= 2)
            #expect(
                overview.requests.total >= 8 && overview.requests.clientErrors >= 1 && overview.requests.inFlight >= 1)
            #expect(overview.partners == 2 && overview.accounts == 1)
            #expect(!overview.version.isEmpty && overview.startedAtMs > 1_700_000_000_000)
        }
    }
}
