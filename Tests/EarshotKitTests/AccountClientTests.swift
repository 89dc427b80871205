import EarshotAPI
import EarshotKit
import EarshotServerTestSupport
import Foundation
import Testing

@testable import EarshotServer

/// `AccountClient` against the real server: sign in, user tokens from the session for the records API, devices,
/// sign-out (after which the token provider refuses), and sign-up's answer.
@Suite(.serialized) struct AccountClientTests {
    static let password = "correct horse battery staple"

    @Test func signInRefreshUseTheLibraryAndSignOut() async throws {
        try await TestPlatform.with { platform in
            let account = try await AccountAdministration(configuration: platform.configuration).create(
                tenant: nil, email: "ada@example.com", phone: nil, country: nil, password: Self.password,
                nickname: "Ada")
            let accounts = AccountClient(baseURL: platform.base)
            let wrong = await #expect(throws: EarshotError.self) {
                try await accounts.signIn(.email("ada@example.com"), password: "not the password")
            }
            #expect(wrong?.code == .unauthorized)
            let signedIn = try await accounts.signIn(.email("ada@example.com"), password: Self.password, device: "test")
            #expect(signedIn.account.id == account.id)
            #expect(await accounts.sessionToken == signedIn.sessionToken)
            #expect(try await accounts.profile().nickname == "Ada")
            #expect(try await accounts.setNickname("Ada L.").nickname == "Ada L.")

            // The platform API through an EarshotClient whose tokens come from the session.
            let client = EarshotClient(baseURL: platform.base, tokenProvider: accounts.tokenProvider)
            let records = try await RecordsClient(client: client).list()
            #expect(records.records.isEmpty)
            #expect(try await accounts.refresh().expiresIn == 900)

            // A second device, listed and signed out from the first.
            let tablet = AccountClient(baseURL: platform.base)
            try await tablet.signIn(.email("ada@example.com"), password: Self.password, device: "tablet")
            let devices = try await accounts.sessions()
            #expect(devices.count == 2)
            let other = try #require(devices.first { !$0.current })
            #expect(other.device == "tablet")
            try await accounts.revokeSession(other.id)
            await #expect(throws: EarshotError.self) { try await tablet.profile() }

            try await accounts.signOut()
            #expect(await accounts.sessionToken == nil)
            let after = await #expect(throws: EarshotError.self) { try await accounts.refresh() }
            #expect(after?.code == .unauthorized)

            // Resuming a stored session that was signed out fails the same way.
            let stale = AccountClient(baseURL: platform.base, sessionToken: signedIn.sessionToken)
            let refused = await #expect(throws: EarshotError.self) { try await stale.refresh() }
            #expect(refused?.status == 401)
        }
    }

    @Test func signUpSendsACodeAndBadInputNamesTheField() async throws {
        try await TestPlatform.with { platform in
            let accounts = AccountClient(baseURL: platform.base)
            let sent = try await accounts.signUp(.email("bob@example.com"), password: Self.password)
            #expect(sent.channel == "email")
            #expect(sent.destination == "b•••@example.com")
            let bad = await #expect(throws: EarshotError.self) {
                try await accounts.signUp(.phone("+1 415 555", country: "US"), password: Self.password)
            }
            #expect(bad?.code == .invalidArgument)
            #expect(bad?.message.hasPrefix("phone: ") == true)
            #expect(try await accounts.countries().contains { $0.code == "US" && $0.dialCode == "+1" })
        }
    }
}
