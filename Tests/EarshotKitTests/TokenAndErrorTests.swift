import EarshotAPI
import EarshotKit
import Foundation
import Testing

/// Token refresh through the provider, partner tokens and error mapping, against a real server.
@Suite(.serialized) struct TokenAndErrorTests {
    struct BackendDown: Error {}

    @Test func anExpiredUserTokenIsRenewedOnceThroughTheProviderAndTheCallSucceeds() async throws {
        try await KitPlatform.with(chunkSize: 64 << 10) { platform in
            let partner = try await platform.createPartner()
            let expired = try await platform.expiredUserToken("user-1", partner: partner)
            let fresh = try await platform.userToken("user-1", partner: partner)
            let calls = Counter()
            let client = EarshotClient(baseURL: platform.base, token: expired) {
                calls.increment()
                return fresh
            }
            let file = try makeTestFile(100_000, in: platform.directory)
            let done = try await FileUploader(
                client: client, configuration: .init(stateDirectory: platform.directory.appendingPathComponent("s"))
            ).upload(fileAt: file)
            #expect(calls.count == 1)
            #expect(await client.currentToken == fresh)
            // Later calls use the new token without asking again.
            _ = try await client.file(done.fileID)
            #expect(calls.count == 1)
        }
    }

    @Test func concurrentRequestsShareOneRefresh() async throws {
        try await KitPlatform.with(chunkSize: 64 << 10) { platform in
            let partner = try await platform.createPartner()
            let expired = try await platform.expiredUserToken("user-1", partner: partner)
            let fresh = try await platform.userToken("user-1", partner: partner)
            let calls = Counter()
            let client = EarshotClient(baseURL: platform.base, token: expired) {
                calls.increment()
                try await Task.sleep(for: .milliseconds(100))
                return fresh
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let error = await #expect(throws: EarshotError.self) { try await client.file("file_missing") }
                        #expect(error?.code == .notFound)  // authenticated (404, not 401)
                    }
                }
                try await group.waitForAll()
            }
            #expect(calls.count == 1)
        }
    }

    @Test func aFailingProviderSurfacesUnauthorized() async throws {
        try await KitPlatform.with(chunkSize: 64 << 10) { platform in
            let partner = try await platform.createPartner()
            let expired = try await platform.expiredUserToken("user-1", partner: partner)
            let calls = Counter()
            let client = EarshotClient(baseURL: platform.base, token: expired) {
                calls.increment()
                throw BackendDown()
            }
            let error = await #expect(throws: EarshotError.self) { try await client.file("file_x") }
            #expect(error?.code == .unauthorized)
            #expect(error?.underlying is BackendDown)
            #expect(calls.count == 1)
        }
    }

    @Test func withoutAProviderA401IsFinalAndCarriesTheServerMessage() async throws {
        try await KitPlatform.with(chunkSize: 64 << 10) { platform in
            let partner = try await platform.createPartner()
            let expired = try await platform.expiredUserToken("user-1", partner: partner)
            let client = EarshotClient(baseURL: platform.directBase, token: expired)
            let error = await #expect(throws: EarshotError.self) { try await client.file("file_x") }
            #expect(error?.code == .unauthorized)
            #expect(error?.status == 401)
            #expect(error?.message.contains("expired") == true)
            #expect(error?.requestID?.hasPrefix("req_") == true)
            // setUserToken replaces the token for later calls.
            await client.setUserToken(try await platform.userToken("user-1", partner: partner))
            let after = await #expect(throws: EarshotError.self) { try await client.file("file_x") }
            #expect(after?.code == .notFound)
        }
    }

    @Test func serverErrorsMapToCodesWithStatusAndRequestID() async throws {
        try await KitPlatform.with(chunkSize: 64 << 10) { platform in
            let partner = try await platform.createPartner()
            let token = try await platform.userToken("user-1", partner: partner)
            let client = EarshotClient(baseURL: platform.directBase, token: token)

            let missing = await #expect(throws: EarshotError.self) { try await client.file("file_doesnotexist") }
            #expect(missing?.code == .notFound)
            #expect(missing?.status == 404)
            #expect(missing?.wireCode == "NOT_FOUND")
            #expect(missing?.requestID?.hasPrefix("req_") == true)

            // A file type the server does not accept.
            let wrongType = try FileUploader(client: client).prepare(
                fileAt: try makeTestFile(10, in: platform.directory, name: "x.exe"))
            let invalid = await #expect(throws: EarshotError.self) { try await wrongType.run() }
            #expect(invalid?.code == .invalidArgument)
            #expect(invalid?.status == 400)

            let unreachable = EarshotClient(baseURL: URL(string: "http://127.0.0.1:1")!, token: token)
            let network = await #expect(throws: EarshotError.self) { try await unreachable.file("file_x") }
            #expect(network?.code == .network)
            #expect(network?.status == nil)
        }
    }

    @Test func partnerCredentialsBecomeUserTokens() async throws {
        try await KitPlatform.with(chunkSize: 64 << 10) { platform in
            let partner = try await platform.createPartner()
            let tokens = PartnerTokenClient(
                baseURL: platform.base, clientID: partner.clientID, clientSecret: partner.clientSecret)
            let user = try await tokens.userToken(for: "user-42", ttlSeconds: 600)
            #expect(user.tokenType == "bearer" && user.expiresIn <= 600)
            let partnerToken = try await tokens.partnerToken()
            #expect(try await tokens.partnerToken() == partnerToken)  // cached

            let wrong = PartnerTokenClient(baseURL: platform.base, clientID: partner.clientID, clientSecret: "sk_wrong")
            let error = await #expect(throws: EarshotError.self) { try await wrong.userToken(for: "u") }
            #expect(error?.code == .unauthorized)

            // The user token works for uploads, which belong to that user.
            let client = EarshotClient(baseURL: platform.base, token: user.accessToken)
            let file = try makeTestFile(1000, in: platform.directory)
            let done = try await FileUploader(
                client: client, configuration: .init(stateDirectory: platform.directory.appendingPathComponent("s"))
            ).upload(fileAt: file)
            #expect(try await client.file(done.fileID).userID == "user-42")
        }
    }
}
