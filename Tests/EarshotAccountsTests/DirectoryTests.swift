import EarshotStore
import Foundation
import Synchronization
import Testing

@testable import EarshotAccounts

/// The account directory on a real SQLite file: codes (single use, expiry, lock after wrong tries, resend
/// interval), sign-in, tenants, sessions.
@Suite struct DirectoryTests {
    /// A clock the test moves.
    final class Clock: Sendable {
        let value = Mutex<Int64>(1_800_000_000_000)
        func advance(_ duration: Duration) { value.withLock { $0 += duration.milliseconds } }
        var now: @Sendable () -> Int64 { { [self] in value.withLock { $0 } } }
    }

    /// The tables the accounts component refers to (the server's partners table, the job queue).
    static let partners = SchemaComponent(
        "partners",
        [
            Migration(
                version: 1, name: "partners",
                sql: """
                    CREATE TABLE partners (id TEXT PRIMARY KEY, name TEXT NOT NULL, secret_hash TEXT NOT NULL,
                        status TEXT NOT NULL, created_at INTEGER NOT NULL);
                    INSERT INTO partners VALUES ('ptn_aaaaaaaaaaaaaaaaaaaa', 'Other', '!', 'active', 0);
                    """)
        ])

    static func withDirectory(
        _ body: (AccountDirectory, Clock, any MetadataStore) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-accounts-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteMetadataStore(
            configuration: .init(
                location: .file(directory.appendingPathComponent("db.sqlite")),
                schema: [StoreSchema.settings, partners, JobQueue.schema, AccountDirectory.schema]))
        let clock = Clock()
        // Cheap hashes keep the suite fast; the parameters are tested in Argon2Tests.
        let hasher = PasswordHasher(
            configuration: .init(parameters: Argon2Parameters(memoryKiB: 1024, iterations: 1, parallelism: 1)))
        do {
            try await body(AccountDirectory(metadata: store, hasher: hasher, now: clock.now), clock, store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// The code in the newest outbox message to `address`.
    static func lastCode(_ store: any MetadataStore, to address: String) async throws -> String {
        let body = try await store.read { db in
            try db.scalar(
                "SELECT body FROM account_outbox WHERE destination = ? ORDER BY created_at DESC, rowid DESC LIMIT 1",
                address, as: String.self)
        }
        let text = try #require(body)
        let digits = text.split(whereSeparator: { !$0.isNumber }).first { $0.count == 6 }
        return String(try #require(digits))
    }

    static let tenant = AccountDirectory.defaultTenant
    static let ada = AccountAddress.email(try! EmailAddress("ada@example.com"))

    @Test func signUpVerifySignIn() async throws {
        try await Self.withDirectory { accounts, _, store in
            let ticket = try await accounts.signUp(
                tenant: Self.tenant, address: Self.ada, password: "correct horse battery", nickname: "Ada")
            #expect(ticket.destination == "a•••@example.com")
            #expect(ticket.expiresIn == 600)
            // The message has its delivery job in the queue.
            let job = try await store.read { db in
                try db.scalar("SELECT kind FROM jobs WHERE id = ?", ticket.messageID, as: String.self)
            }
            #expect(job == Outbox.jobKind)
            let pending = await #expect(throws: AccountError.self) {
                try await accounts.signIn(tenant: Self.tenant, address: Self.ada, password: "correct horse battery")
            }
            #expect(pending?.code == .forbidden)
            let code = try await Self.lastCode(store, to: "ada@example.com")
            let account = try await accounts.verify(tenant: Self.tenant, address: Self.ada, code: code)
            #expect(account.status == .active)
            #expect(account.nickname == "Ada")
            let signedIn = try await accounts.signIn(
                tenant: Self.tenant, address: Self.ada, password: "correct horse battery")
            #expect(signedIn.id == account.id)
            let wrong = await #expect(throws: AccountError.self) {
                try await accounts.signIn(tenant: Self.tenant, address: Self.ada, password: "correct horse batterY")
            }
            #expect(wrong?.code == .unauthorized)
            // Replaying the used code is refused, by name.
            let replay = await #expect(throws: AccountError.self) {
                try await accounts.verify(tenant: Self.tenant, address: Self.ada, code: code)
            }
            #expect(replay?.field == "code")
            #expect(replay?.message.contains("already used") == true)
        }
    }

    @Test func wrongCodesLockTheCodeEvenForTheRightOneAfterwards() async throws {
        try await Self.withDirectory { accounts, _, store in
            _ = try await accounts.signUp(
                tenant: Self.tenant, address: Self.ada, password: "correct horse battery", nickname: nil)
            let code = try await Self.lastCode(store, to: "ada@example.com")
            let wrong = code == "000000" ? "111111" : "000000"
            var messages: [String] = []
            for _ in 0..<5 {
                let error = await #expect(throws: AccountError.self) {
                    try await accounts.verify(tenant: Self.tenant, address: Self.ada, code: wrong)
                }
                messages.append(error?.message ?? "")
            }
            #expect(messages.first?.contains("4 tries left") == true, "\(messages)")
            #expect(messages.last?.contains("now locked") == true, "\(messages)")
            let locked = await #expect(throws: AccountError.self) {
                try await accounts.verify(tenant: Self.tenant, address: Self.ada, code: code)
            }
            #expect(locked?.message.contains("locked") == true)
        }
    }

    @Test func codesExpireAndNewOnesWaitForTheResendInterval() async throws {
        try await Self.withDirectory { accounts, clock, store in
            _ = try await accounts.signUp(
                tenant: Self.tenant, address: Self.ada, password: "correct horse battery", nickname: nil)
            let first = try await Self.lastCode(store, to: "ada@example.com")
            let tooSoon = await #expect(throws: AccountError.self) {
                try await accounts.resendCode(tenant: Self.tenant, address: Self.ada, purpose: "verify")
            }
            #expect(tooSoon?.code == .rateLimited)
            #expect(tooSoon?.retryAfter == 60)
            clock.advance(.seconds(601))
            let expired = await #expect(throws: AccountError.self) {
                try await accounts.verify(tenant: Self.tenant, address: Self.ada, code: first)
            }
            #expect(expired?.message.contains("expired") == true)
            _ = try await accounts.resendCode(tenant: Self.tenant, address: Self.ada, purpose: "verify")
            let second = try await Self.lastCode(store, to: "ada@example.com")
            #expect(try await accounts.verify(tenant: Self.tenant, address: Self.ada, code: second).status == .active)
            // A verified address gets no new verification code, and the answer is the one for unknown addresses.
            clock.advance(.seconds(61))
            #expect(try await accounts.resendCode(tenant: Self.tenant, address: Self.ada, purpose: "verify") == nil)
            // Unknown addresses get no code and no error (the answer does not reveal who has an account).
            let nobody = AccountAddress.email(try EmailAddress("nobody@example.com"))
            #expect(try await accounts.resendCode(tenant: Self.tenant, address: nobody, purpose: "reset") == nil)
        }
    }

    @Test func anAccountOfOneTenantCannotSignInToAnother() async throws {
        try await Self.withDirectory { accounts, _, _ in
            let account = try await accounts.create(
                tenant: "ptn_aaaaaaaaaaaaaaaaaaaa", address: Self.ada, password: "correct horse battery",
                nickname: nil)
            #expect(account.partnerID == "ptn_aaaaaaaaaaaaaaaaaaaa")
            let error = await #expect(throws: AccountError.self) {
                try await accounts.signIn(tenant: Self.tenant, address: Self.ada, password: "correct horse battery")
            }
            #expect(error?.code == .unauthorized)
            #expect(try await !accounts.allowsDirectSignIn("ptn_aaaaaaaaaaaaaaaaaaaa"))
            #expect(try await accounts.allowsDirectSignIn(Self.tenant))
        }
    }

    @Test func sessionsAreRevocableAndStoredHashed() async throws {
        try await Self.withDirectory { accounts, clock, store in
            let account = try await accounts.create(
                tenant: Self.tenant, address: Self.ada, password: "correct horse battery", nickname: nil)
            let phone = try await accounts.startSession(
                for: account, kind: .bearer, device: "Phone", ip: "127.0.0.1", userAgent: nil)
            let console = try await accounts.startSession(
                for: account, kind: .cookie, device: nil, ip: nil, userAgent: "Firefox")
            #expect(phone.token.hasPrefix("est_"))
            #expect(console.csrfToken != nil)
            let stored = try await store.read { db in
                try db.query("SELECT token_hash FROM account_sessions").map {
                    try $0.decode("token_hash", as: String.self)
                }
            }
            #expect(!stored.contains(phone.token))
            #expect(try await accounts.authenticate(sessionToken: phone.token).0.id == phone.session.id)
            #expect(try await accounts.checkCSRF(sessionID: console.session.id, csrfToken: console.csrfToken))
            #expect(try await !accounts.checkCSRF(sessionID: console.session.id, csrfToken: "forged"))
            #expect(try await accounts.sessions(of: account.id).count == 2)
            #expect(try await accounts.revokeSession(phone.session.id, of: account.id))
            let revoked = await #expect(throws: AccountError.self) {
                try await accounts.authenticate(sessionToken: phone.token)
            }
            #expect(revoked?.message.contains("signed out") == true)
            clock.advance(.seconds(31 * 86400))
            let expired = await #expect(throws: AccountError.self) {
                try await accounts.authenticate(sessionToken: console.token)
            }
            #expect(expired?.message.contains("expired") == true)
        }
    }

    @Test func resettingThePasswordEndsEverySession() async throws {
        try await Self.withDirectory { accounts, _, store in
            let account = try await accounts.create(
                tenant: Self.tenant, address: Self.ada, password: "correct horse battery", nickname: nil)
            let session = try await accounts.startSession(
                for: account, kind: .bearer, device: nil, ip: nil, userAgent: nil)
            _ = try await accounts.requestPasswordReset(tenant: Self.tenant, address: Self.ada)
            let code = try await Self.lastCode(store, to: "ada@example.com")
            let weak = await #expect(throws: AccountError.self) {
                try await accounts.resetPassword(
                    tenant: Self.tenant, address: Self.ada, code: code, newPassword: "1234")
            }
            #expect(weak?.field == "new_password")
            _ = try await accounts.resetPassword(
                tenant: Self.tenant, address: Self.ada, code: code, newPassword: "a brand new passphrase")
            await #expect(throws: AccountError.self) { try await accounts.authenticate(sessionToken: session.token) }
            #expect(
                try await accounts.signIn(tenant: Self.tenant, address: Self.ada, password: "a brand new passphrase").id
                    == account.id)
        }
    }

    @Test func aWeakStoredHashIsUpgradedAtSignIn() async throws {
        try await Self.withDirectory { accounts, _, store in
            let account = try await accounts.create(
                tenant: Self.tenant, address: Self.ada, password: "correct horse battery", nickname: nil)
            let stronger = AccountDirectory(
                metadata: store,
                hasher: PasswordHasher(
                    configuration: .init(parameters: Argon2Parameters(memoryKiB: 2048, iterations: 2, parallelism: 1))))
            _ = try await stronger.signIn(tenant: Self.tenant, address: Self.ada, password: "correct horse battery")
            let hash = try await store.read { db in
                try db.scalar("SELECT password_hash FROM accounts WHERE id = ?", account.id, as: String.self)
            }
            #expect(hash?.hasPrefix("$argon2id$v=19$m=2048,t=2,p=1$") == true)
        }
    }

    @Test func parallelWrongGuessesStillLockTheCodeAfterFive() async throws {
        try await Self.withDirectory { accounts, _, store in
            _ = try await accounts.signUp(
                tenant: Self.tenant, address: Self.ada, password: "correct horse battery", nickname: nil)
            let code = try await Self.lastCode(store, to: "ada@example.com")
            let wrong = code == "000000" ? "111111" : "000000"
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        _ = try? await accounts.verify(tenant: Self.tenant, address: Self.ada, code: wrong)
                    }
                }
                try await group.waitForAll()
            }
            let row = try await store.read { db in
                try db.queryFirst("SELECT attempts, state FROM account_codes ORDER BY created_at DESC LIMIT 1")
            }
            #expect(try row?.decode("attempts", as: Int.self) == 5)
            #expect(try row?.decode("state", as: String.self) == "locked")
            await #expect(throws: AccountError.self) {
                try await accounts.verify(tenant: Self.tenant, address: Self.ada, code: code)
            }
        }
    }
}
