import EarshotAPI
import EarshotStore
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotServer

/// Sign-up with codes delivered for real: email through an SMTP server (aiosmtpd, STARTTLS and AUTH required) and
/// SMS through a local HTTP server playing the provider; then sign-in, sign-out and a password reset.
@Suite(.serialized) struct AccountDeliveryTests {
    static let password = "correct horse battery staple"

    @Test func emailSignUpSignInSignOutAndResetThroughARealSMTPServer() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("smtp")
        defer { try? FileManager.default.removeItem(at: directory) }
        guard let sink = try await SMTPSink.start(in: directory) else { return }
        defer { sink.stop() }
        try await TestPlatform.with({
            $0.taskPollInterval = .milliseconds(50)
            $0.accounts.smtpURL = "smtp://127.0.0.1:\(sink.port)"
            $0.accounts.smtpFrom = "no-reply@earshot.test"
            $0.accounts.smtpUsername = SMTPSink.username
            $0.accounts.smtpPassword = SMTPSink.password
            $0.accounts.smtpCAFile = sink.caFile
        }) { platform in
            let signUp = try await platform.send(
                "POST", APIPath.accountSignUp,
                json: ["email": "Ada@Example.com", "password": Self.password, "nickname": "Ada"])
            #expect(signUp.status == 202, "\(signUp.text)")
            #expect(signUp.object?["destination"] as? String == "a•••@example.com")
            let mail = try await sink.waitForMessage(1)
            #expect(mail["to"] as? [String] == ["ada@example.com"])
            #expect(mail["from"] as? String == "no-reply@earshot.test")
            #expect(mail["tls"] as? Bool == true, "the message must travel after STARTTLS")
            #expect(mail["authenticated"] as? Bool == true)
            let text = try #require(mail["data"] as? String)
            #expect(text.contains("Subject: Your Earshot verification code"))
            let code = try verificationCode(in: text)

            let verified = try await platform.send(
                "POST", APIPath.accountVerify,
                json: ["email": "ada@example.com", "code": code, "device": "Ada's phone"])
            #expect(verified.status == 200, "\(verified.text)")
            let first = try verified.decode(SignInResponse.self)
            #expect(first.account.status == "active")
            #expect(first.account.nickname == "Ada")
            let session = try #require(first.sessionToken)
            #expect(session.hasPrefix("est_"))
            let me = try await platform.send("GET", APIPath.accountMe, token: session)
            #expect(me.object?["email"] as? String == "ada@example.com")
            // The access token is a user token of the account: it lists the account's (empty) library.
            let records = try await platform.send("GET", APIPath.records, token: first.accessToken)
            #expect(records.status == 200, "\(records.text)")

            let signOut = try await platform.send("POST", APIPath.accountSignOut, token: session)
            #expect(signOut.status == 204)
            let afterSignOut = try await platform.send("GET", APIPath.accountMe, token: session)
            #expect(afterSignOut.status == 401)
            #expect(afterSignOut.errorMessage.contains("signed out"))

            let signIn = try await platform.send(
                "POST", APIPath.accountSignIn, json: ["email": "ada@example.com", "password": Self.password])
            #expect(signIn.status == 200, "\(signIn.text)")
            let second = try #require(try signIn.decode(SignInResponse.self).sessionToken)
            let token = try await platform.send("POST", APIPath.accountToken, token: second)
            #expect(token.status == 200)
            #expect(try token.decode(TokenResponse.self).expiresIn == 900)

            // Forgotten password: a reset code by email, a new password, every session ended.
            let reset = try await platform.send(
                "POST", APIPath.accountCodes, json: ["email": "ada@example.com", "purpose": "reset"])
            #expect(reset.status == 202, "\(reset.text)")
            let resetMail = try await sink.waitForMessage(2)
            let resetText = try #require(resetMail["data"] as? String)
            #expect(resetText.contains("password reset code"))
            let changed = try await platform.send(
                "POST", APIPath.accountPasswordReset,
                json: [
                    "email": "ada@example.com", "code": try verificationCode(in: resetText),
                    "new_password": "a completely new passphrase",
                ])
            #expect(changed.status == 204, "\(changed.text)")
            #expect(try await platform.send("GET", APIPath.accountMe, token: second).status == 401)
            let old = try await platform.send(
                "POST", APIPath.accountSignIn, json: ["email": "ada@example.com", "password": Self.password])
            #expect(old.status == 401)
            let new = try await platform.send(
                "POST", APIPath.accountSignIn,
                json: ["email": "ada@example.com", "password": "a completely new passphrase"])
            #expect(new.status == 200, "\(new.text)")
            // Replaying the reset code is refused by name.
            let replay = try await platform.send(
                "POST", APIPath.accountPasswordReset,
                json: [
                    "email": "ada@example.com", "code": try verificationCode(in: resetText),
                    "new_password": "yet another passphrase",
                ])
            #expect(replay.status == 400)
            #expect(replay.errorMessage.hasPrefix("code: this code was already used"), "\(replay.errorMessage)")
        }
    }

    @Test func phoneSignUpWithTheCodeFromTheSMSProvider() async throws {
        let gateway = SMSGatewayStub()
        try await gateway.run { url in
            try await TestPlatform.with({
                $0.taskPollInterval = .milliseconds(50)
                $0.accounts.smsURL = url
                $0.accounts.smsToken = "gateway-key"
                $0.accounts.smsFrom = "Earshot"
            }) { platform in
                let signUp = try await platform.send(
                    "POST", APIPath.accountSignUp,
                    json: ["phone": "+1 (415) 555-0123", "country": "US", "password": Self.password])
                #expect(signUp.status == 202, "\(signUp.text)")
                #expect(signUp.object?["channel"] as? String == "sms")
                let sms = try await gateway.waitForMessage(1)
                #expect(sms.authorization == "Bearer gateway-key")
                #expect(sms.body["to"] == "+14155550123")
                #expect(sms.body["from"] == "Earshot")
                let code = try verificationCode(in: sms.body["body"] ?? "")
                let wrong = code == "123456" ? "654321" : "123456"
                let bad = try await platform.send(
                    "POST", APIPath.accountVerify, json: ["phone": "+14155550123", "code": wrong])
                #expect(bad.status == 400)
                #expect(bad.errorMessage == "code: wrong code; 4 tries left")
                let verified = try await platform.send(
                    "POST", APIPath.accountVerify, json: ["phone": "+14155550123", "country": "US", "code": code])
                #expect(verified.status == 200, "\(verified.text)")
                let account = try verified.decode(SignInResponse.self).account
                #expect(account.phone == "+14155550123")
                #expect(account.country == "US")
            }
        }
    }

    @Test func wrongCodesLockTheCode() async throws {
        let gateway = SMSGatewayStub()
        try await gateway.run { url in
            try await TestPlatform.with({
                $0.taskPollInterval = .milliseconds(50)
                $0.accounts.smsURL = url
                $0.accounts.codeAttempts = 3
            }) { platform in
                let signUp = try await platform.send(
                    "POST", APIPath.accountSignUp, json: ["phone": "+4915112345678", "password": Self.password])
                #expect(signUp.status == 202, "\(signUp.text)")
                let code = try verificationCode(in: try await gateway.waitForMessage(1).body["body"] ?? "")
                let wrong = code == "000000" ? "999999" : "000000"
                var messages: [String] = []
                for _ in 0..<3 {
                    let response = try await platform.send(
                        "POST", APIPath.accountVerify, json: ["phone": "+4915112345678", "code": wrong])
                    messages.append(response.errorMessage)
                }
                #expect(
                    messages == [
                        "code: wrong code; 2 tries left", "code: wrong code; 1 try left",
                        "code: wrong code; the code is now locked, ask for a new one",
                    ])
                let right = try await platform.send(
                    "POST", APIPath.accountVerify, json: ["phone": "+4915112345678", "code": code])
                #expect(right.status == 400)
                #expect(right.errorMessage.contains("locked after too many wrong tries"))
            }
        }
    }

    /// The delivery job of the newest outbox message and what is left of its body.
    static func lastDelivery(_ platform: TestPlatform) async throws -> (
        state: String, attempts: Int, error: String?, body: String
    ) {
        let store = try await Application.openMetadataStore(platform.configuration)
        let row: SQLRow?
        do {
            row = try await store.read { db in
                try db.queryFirst(
                    "SELECT j.state, j.attempts, j.error, o.body FROM account_outbox o JOIN jobs j ON j.id = o.id "
                        + "ORDER BY o.created_at DESC, o.rowid DESC LIMIT 1")
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        let found = try #require(row)
        return (
            try found.decode("state"), try found.decode("attempts"), try found.decode("error", as: String?.self),
            try found.decode("body")
        )
    }

    /// Polls the newest delivery until its job is final (20 s at most).
    static func finalDelivery(_ platform: TestPlatform) async throws -> (
        state: String, attempts: Int, error: String?, body: String
    ) {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let delivery = try await lastDelivery(platform)
            if ["succeeded", "failed", "cancelled"].contains(delivery.state) || ContinuousClock.now > deadline {
                return delivery
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func aGatewayThatIsDownIsRetriedAndTheCodeIsErasedOnceSent() async throws {
        let gateway = SMSGatewayStub(statuses: [503, 200])
        try await gateway.run { url in
            try await TestPlatform.with({
                $0.taskPollInterval = .milliseconds(50)
                $0.accounts.smsURL = url
            }) { platform in
                let signUp = try await platform.send(
                    "POST", APIPath.accountSignUp, json: ["phone": "+8613812345678", "password": Self.password])
                #expect(signUp.status == 202, "\(signUp.text)")
                let sms = try await gateway.waitForMessage(2)
                #expect(try verificationCode(in: sms.body["body"] ?? "").count == 6)
                let delivery = try await Self.finalDelivery(platform)
                #expect(delivery.state == "succeeded")
                #expect(delivery.attempts == 2)
                #expect(delivery.body.isEmpty, "the code must not stay in the outbox")
            }
        }
    }

    @Test func aRefusedMessageFailsAtOnceWithTheProvidersAnswer() async throws {
        let gateway = SMSGatewayStub(statuses: [400])
        try await gateway.run { url in
            try await TestPlatform.with({
                $0.taskPollInterval = .milliseconds(50)
                $0.accounts.smsURL = url
            }) { platform in
                let signUp = try await platform.send(
                    "POST", APIPath.accountSignUp, json: ["phone": "+8613812345678", "password": Self.password])
                #expect(signUp.status == 202, "\(signUp.text)")
                let delivery = try await Self.finalDelivery(platform)
                #expect(delivery.state == "failed")
                #expect(delivery.attempts == 1)
                #expect(delivery.error?.contains("answered HTTP 400") == true, "\(delivery.error ?? "")")
                #expect(delivery.body.isEmpty)
                #expect(gateway.all.count == 1)
            }
        }
    }
}
