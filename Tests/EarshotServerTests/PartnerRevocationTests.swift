import EarshotAPI
import Foundation
import Synchronization
import Testing

@testable import EarshotServer

/// Issue 13, findings 4 and 7: the token endpoint hashed every wrong secret with a 100k-round PBKDF2 (CPU
/// exhaustion without credentials); disabling a partner did not revoke its signed URLs, re-enabling it revived all
/// its old tokens, and secrets could not be rotated.
@Suite struct PartnerRevocationTests {
    @Test func disablingAPartnerRevokesItsTokensAndURLsForGood() async throws {
        try await TestPlatform.with { platform in
            let (partner, token, userToken) = try await platform.newUser()
            let plan = try await platform.plan(1000, token: userToken)
            let content = testContent(1000)
            let done = try await platform.upload(content, token: token)
            let administration = PartnerAdministration(configuration: platform.configuration)

            try await administration.setStatus(partner.clientID, active: false)
            #expect(try await platform.send("GET", APIPath.transcriptions, token: token).status == 401)
            #expect(try await platform.send("GET", APIPath.records, token: userToken).status == 401)
            let put = try await platform.send("PUT", plan.parts[0].presignedURL, body: content)
            #expect(put.status == 403, "\(put.text)")
            #expect(put.errorMessage.contains("revoked"))
            #expect(try await platform.send("GET", done.downloadURL).status == 403)

            // Enabling it again revives none of them; new credentials work.
            try await administration.setStatus(partner.clientID, active: true)
            let old = try await platform.send("GET", APIPath.transcriptions, token: token)
            #expect(old.status == 401 && old.errorMessage.contains("revoked"), "\(old.text)")
            #expect(try await platform.send("GET", APIPath.records, token: userToken).status == 401)
            #expect(try await platform.send("PUT", plan.parts[0].presignedURL, body: content).status == 403)
            #expect(try await platform.send("GET", done.downloadURL).status == 403)
            let fresh = try await platform.partnerToken(partner)
            #expect(try await platform.send("GET", APIPath.transcriptions, token: fresh).status == 200)
            let file = try await platform.send(
                "GET", APIPath.filled(APIPath.file, ["file_id": done.fileID]), token: fresh
            ).decode(FileInfo.self)
            #expect(try await platform.send("GET", file.downloadURL).data == content)
        }
    }

    // On both backends: PostgreSQL's 32-bit INTEGER once could not hold the overlap's end in Unix ms.
    @Test(arguments: ServerTestBackend.available)
    func aRotatedSecretOverlapsThenStopsWorking(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let partner = try await platform.createPartner()
            let administration = PartnerAdministration(configuration: platform.configuration)
            let second = try await administration.rotateSecret(partner.clientID, overlap: .seconds(3600))
            #expect(second != partner.clientSecret && second.hasPrefix("sk_"))
            // During the overlap both secrets get tokens.
            _ = try await platform.partnerToken(partner)
            let renamed = PartnerCredentials(partner: partner.partner, clientSecret: second)
            _ = try await platform.partnerToken(renamed)
            // A rotation without overlap ends the old secret at once (even one verified a moment ago).
            let third = try await administration.rotateSecret(partner.clientID, overlap: .zero)
            for secret in [partner.clientSecret, second] {
                let refused = try await platform.send(
                    "POST", APIPath.partnerToken, json: ["client_id": partner.clientID, "client_secret": secret])
                #expect(refused.status == 401, "\(refused.text)")
            }
            _ = try await platform.partnerToken(PartnerCredentials(partner: partner.partner, clientSecret: third))
        }
    }

    @Test func wrongSecretsAreRateLimitedBeforeHashing() async throws {
        try await TestPlatform.with { platform in
            let victim = try await platform.createPartner("Victim")
            var statuses: [Int] = []
            var retryAfter: String?
            let started = ContinuousClock.now
            for attempt in 0..<15 {
                let response = try await platform.send(
                    "POST", APIPath.partnerToken,
                    json: ["client_id": victim.clientID, "client_secret": "sk_wrong\(attempt)"])
                statuses.append(response.status)
                if response.status == 429 { retryAfter = response.header("Retry-After") }
            }
            // 10 at once, then one more every 5 s: a slow machine may earn a few back while it hashes.
            let elapsed = ContinuousClock.now - started
            let earned = Int((Double(elapsed.components.seconds) / 5).rounded(.up))
            #expect(statuses.prefix(10).allSatisfy { $0 == 401 }, "\(statuses)")
            #expect(statuses.allSatisfy { $0 == 401 || $0 == 429 }, "\(statuses)")
            #expect(statuses.filter { $0 == 401 }.count <= 10 + earned, "\(statuses) in \(elapsed)")
            #expect(statuses.filter { $0 == 429 }.count >= 5 - earned, "\(statuses) in \(elapsed)")
            #expect(retryAfter.flatMap(Int.init).map { $0 >= 1 } == true)
            // The right secret, once verified, is recognised without hashing and without the limit.
            let other = try await platform.createPartner("Busy")
            for _ in 0..<30 { _ = try await platform.partnerToken(other) }
        }
    }

    @Test func theRateLimiterBoundsItsMemoryAndSaysWhenToRetry() {
        let clock = ManualClock()
        let limiter = RateLimiter(.init(burst: 2, rate: 0.5, maximumKeys: 100), clock: { clock.now })
        #expect(limiter.acquire("a") == nil)
        #expect(limiter.acquire("a") == nil)
        let wait = limiter.acquire("a")
        #expect(wait.map { $0 > .seconds(1) && $0 <= .seconds(2) } == true, "\(String(describing: wait))")
        #expect(RateLimiter.retryAfterSeconds(wait ?? .zero) == 2)
        clock.advance(.seconds(2))
        #expect(limiter.acquire("a") == nil)
        // A flood of distinct keys never grows the table past its bound.
        for index in 0..<10_000 { _ = limiter.acquire("key-\(index)") }
        #expect(limiter.trackedKeys <= 100)
    }
}

/// A clock a test moves by hand.
final class ManualClock: Sendable {
    private let base = ContinuousClock.now
    private let offset = Mutex<Duration>(.zero)
    var now: ContinuousClock.Instant { base + offset.withLock { $0 } }
    func advance(_ by: Duration) { offset.withLock { $0 += by } }
}
