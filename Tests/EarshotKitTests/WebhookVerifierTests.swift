import EarshotAPI
import EarshotCrypto
import Foundation
import Testing

@testable import EarshotKit
@testable import EarshotServer

/// The SDK's webhook verification: its pure-Swift HMAC-SHA256 agrees with the server's libcrypto signer, and
/// forged, tampered, stale and malformed signatures are refused with `UNAUTHORIZED`.
@Suite struct WebhookVerifierTests {
    @Test(arguments: [
        // RFC 4231 test case 2.
        ("Jefe", "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        // A key longer than the block (hashed first) and an empty message.
        (String(repeating: "k", count: 131), "", ""),
    ])
    func hmacMatchesKnownAnswersAndLibcrypto(key: String, message: String, known: String) {
        let ours = MD5.hexString(SHA256.hmac(key: Array(key.utf8), message: Array(message.utf8)))
        let libcrypto = HMAC.authenticationCode(.sha256, key: Array(key.utf8), message: Array(message.utf8)).hex
        #expect(ours == libcrypto)
        if !known.isEmpty { #expect(ours == known) }
    }

    @Test func sha256MatchesLibcryptoAcrossBlockBoundaries() throws {
        for count in [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000] {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            var hasher = try StreamingHasher(.sha256)
            hasher.update(Data(bytes))
            let libcrypto = hasher.finalize().hex
            #expect(MD5.hexString(SHA256.hash(bytes)) == libcrypto, "\(count) bytes")
        }
    }

    @Test func aServerSignedBodyVerifiesAndDecodes() throws {
        let body = Array(
            #"{"attempts":1,"created_at_ms":1,"file_id":"file_1","model":"asr-fast","progress":100,"status":"SUCCESS","task_id":"task_1","updated_at_ms":2}"#
                .utf8)
        let now = Date()
        let timestamp = Int64(now.timeIntervalSince1970)
        let header = Webhooks.signature(secret: "whsec_test", timestamp: timestamp, body: body)
        let verifier = WebhookVerifier(secret: "whsec_test")
        #expect(verifier.sign(body: body, timestamp: timestamp) == header)
        let task = try verifier.verifiedTask(signature: header, body: body, now: now)
        #expect(task.taskID == "task_1" && task.status == .success)
    }

    @Test(
        arguments: [
            (nil, "no Earshot-Signature header"),
            ("v1=abc", "is not of the form"),
            ("t=1700000000", "is not of the form"),
            ("t=NOW,v1=0000000000000000000000000000000000000000000000000000000000000000", "does not match"),
            ("STALE", "tolerance 300 s"),
            ("TAMPERED", "does not match"),
            ("OTHER-SECRET", "does not match"),
        ] as [(String?, String)])
    func badSignaturesAreRefused(header: String?, reason: String) {
        let body = Array(#"{"task_id":"task_1"}"#.utf8)
        let now = Date()
        let t = Int64(now.timeIntervalSince1970)
        let verifier = WebhookVerifier(secret: "whsec_test")
        let signature: String? =
            switch header {
            case "STALE": verifier.sign(body: body, timestamp: t - 301)
            case "TAMPERED": verifier.sign(body: Array(#"{"task_id":"task_2"}"#.utf8), timestamp: t)
            case "OTHER-SECRET": WebhookVerifier(secret: "whsec_other").sign(body: body, timestamp: t)
            default: header?.replacingOccurrences(of: "NOW", with: String(t))
            }
        let error = #expect(throws: EarshotError.self) {
            try verifier.verify(signature: signature, body: body, now: now)
        }
        #expect(error?.code == .unauthorized)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }
}
