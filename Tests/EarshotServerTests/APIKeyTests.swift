import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// Long-lived API keys beside tokens: created by a partner with scopes (and optionally a user), accepted wherever a
/// token is, limited to their scopes, refused at once when revoked or expired; only a hash is stored.
@Suite(.serialized)
struct APIKeyTests {
    @Test func aUserKeyReadsItsUsersRecordsUntilRevoked() async throws {
        try await TestPlatform.with { platform in
            let (_, partner, user) = try await platform.newUser("alice")
            _ = try await platform.createRecord(token: user, ["title": "Standup"])
            let created = try await platform.send(
                "POST", APIPath.apiKeys, token: partner,
                json: ["name": "nightly export", "scopes": ["records:read"], "user_id": "alice"])
            #expect(created.status == 201, "\(created.text)")
            let key = try created.decode(CreatedAPIKey.self)
            #expect(key.apiKey.hasPrefix("esk_") && key.apiKey.count > 40)
            #expect(key.key.prefix == String(key.apiKey.prefix(8)))

            let list = try await platform.send("GET", APIPath.records, token: key.apiKey)
            #expect(list.status == 200, "\(list.text)")
            #expect(try list.decode(RecordList.self).records.map(\.title) == ["Standup"])
            // records:read does not write, and a user key is not a partner credential.
            let write = try await platform.send(
                "POST", APIPath.records, token: key.apiKey, json: ["file_id": "file_x"])
            #expect(write.status == 403)
            #expect(write.errorMessage.contains("records:write"))
            #expect(try await platform.send("GET", APIPath.apiKeys, token: key.apiKey).status == 403)

            let listed = try await platform.send("GET", APIPath.apiKeys, token: partner).decode(APIKeyList.self)
            #expect(listed.keys.map(\.keyID) == [key.key.keyID])
            #expect(listed.keys[0].lastUsedAtMs != nil)
            #expect(!(try await platform.send("GET", APIPath.apiKeys, token: partner).text.contains(key.apiKey)))

            let revoked = try await platform.send(
                "DELETE", APIPath.filled(APIPath.apiKey, ["key_id": key.key.keyID]), token: partner)
            #expect(revoked.status == 200)
            #expect(try revoked.decode(APIKey.self).revokedAtMs != nil)
            let after = try await platform.send("GET", APIPath.records, token: key.apiKey)
            #expect(after.status == 401)
            #expect(after.errorMessage.contains("revoked"))
        }
    }

    @Test func aPartnerKeyIsAPartnerCredentialAndBadRequestsAreRefused() async throws {
        try await TestPlatform.with { platform in
            let (_, partner, _) = try await platform.newUser()
            let key = try await platform.send(
                "POST", APIPath.apiKeys, token: partner, json: ["name": "ci", "scopes": ["partner"]]
            ).decode(CreatedAPIKey.self)
            let models = try await platform.send("GET", APIPath.openAIModels, token: key.apiKey)
            #expect(models.status == 200, "\(models.text)")
            let userToken = try await platform.send(
                "POST", APIPath.userToken, token: key.apiKey, json: ["user_id": "bob"])
            #expect(userToken.status == 200)
            for (body, word) in [
                (["name": "x", "scopes": ["admin"]] as [String: Any], "admin"),
                (["name": "x", "scopes": []], "scopes"),
                (["name": "x", "scopes": ["partner"], "user_id": "bob"], "partner scope"),
                (["name": "", "scopes": ["records:read"]], "name"),
                (["name": "x", "scopes": ["records:read"], "expires_in_days": 0], "expires_in_days"),
            ] {
                let refused = try await platform.send("POST", APIPath.apiKeys, token: partner, json: body)
                #expect(refused.status == 400 && refused.errorMessage.contains(word), "\(refused.text)")
            }
            #expect(try await platform.send("GET", APIPath.records, token: "esk_forged").status == 401)
        }
    }
}
