import EarshotCrypto
import Foundation
import Testing

@testable import EarshotServer

/// The JWT code against the published HS256 example of RFC 7515 (Appendix A.1), which RFC 7519 §3.1 reuses.
@Suite struct JWTTests {
    /// RFC 7515 A.1: the JWK `k` value.
    static let key = Base64URL.decode(
        "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow")!
    /// RFC 7515 A.1: the complete JWS Compact Serialization.
    static let token =
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    @Test func signingReproducesTheRFCExample() {
        let payload = Array("{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}".utf8)
        let signed = JWT.sign(
            encodedHeader: "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9", payload: payload, key: Self.key)
        #expect(signed == Self.token)
    }

    @Test func theRFCExampleVerifiesAndYieldsItsClaims() async throws {
        let (header, payload) = try await JWT.verify(Self.token) { _ in Self.key }
        #expect(header.alg == "HS256")
        #expect(header.typ == "JWT")
        let claims = try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
        #expect(claims?["iss"] as? String == "joe")
        #expect(claims?["exp"] as? Int == 1_300_819_380)
        #expect(claims?["http://example.com/is_root"] as? Bool == true)
    }

    @Test func aChangedPayloadOrSignatureOrKeyFails() async throws {
        let segments = Self.token.split(separator: ".").map(String.init)
        let otherPayload = Base64URL.encode(Array(#"{"iss":"joe","exp":9999999999}"#.utf8))
        await expectFailure(.badSignature, [segments[0], otherPayload, segments[2]].joined(separator: "."))
        var signature = Array(segments[2])
        signature[5] = signature[5] == "A" ? "B" : "A"
        await expectFailure(.badSignature, [segments[0], segments[1], String(signature)].joined(separator: "."))
        await #expect(throws: JWT.Failure.badSignature) {
            _ = try await JWT.verify(Self.token) { _ in Array(repeating: 7, count: 64) }
        }
    }

    @Test(arguments: ["none", "HS512", "RS256", "hs256", ""])
    func otherAlgorithmsAreRefusedBeforeAnyKeyIsUsed(alg: String) async throws {
        let header = Base64URL.encode(Array(#"{"alg":"\#(alg)","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(Array(#"{"iss":"joe"}"#.utf8))
        for signature in ["", Base64URL.encode(Array(repeating: UInt8(1), count: 32))] {
            await #expect(throws: JWT.Failure.unsupportedAlgorithm(alg)) {
                _ = try await JWT.verify("\(header).\(payload).\(signature)") { _ in
                    Issue.record("no key may be looked up for alg \(alg)")
                    return Self.key
                }
            }
        }
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", "!!!.e30.AAAA", "e30.e30.AAAA"])
    func malformedTokensAreRefused(token: String) async {
        await #expect(throws: JWT.Failure.self) { _ = try await JWT.verify(token) { _ in Self.key } }
    }

    @Test func criticalExtensionsAreRefused() async {
        let header = Base64URL.encode(Array(#"{"alg":"HS256","crit":["exp"],"exp":1}"#.utf8))
        let token = JWT.sign(encodedHeader: header, payload: Array("{}".utf8), key: Self.key)
        await #expect(throws: JWT.Failure.self) { _ = try await JWT.verify(token) { _ in Self.key } }
    }

    @Test func base64urlIsCanonical() {
        #expect(Base64URL.encode([]) == "")
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode(Array("foo".utf8)) == "Zm9v")
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("Zg==") == nil)  // no padding
        #expect(Base64URL.decode("Zh") == nil)  // non-zero spare bits: a second spelling of "f"
        #expect(Base64URL.decode("Z") == nil)  // impossible length
        #expect(Base64URL.decode("Zm+v") == nil)  // standard alphabet
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    private func expectFailure(_ failure: JWT.Failure, _ token: String) async {
        await #expect(throws: failure) { _ = try await JWT.verify(token) { _ in Self.key } }
    }
}
