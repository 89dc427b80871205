import EarshotCrypto
import Testing

@Suite struct KeyDerivationTests {
    /// RFC 7914 §11 (PBKDF2-HMAC-SHA256 test vectors).
    @Test(arguments: [
        (
            "passwd", "salt", 1,
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        ),
        (
            "Password", "NaCl", 80000,
            "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"
        ),
    ])
    func pbkdf2MatchesRFC7914(password: String, salt: String, iterations: Int, expected: String) throws {
        let derived = try PBKDF2.sha256(
            password: Array(password.utf8), salt: Array(salt.utf8), iterations: iterations, length: 64)
        #expect(Digest(bytes: derived).hex == expected)
    }

    @Test func zeroIterationsIsAnError() {
        #expect(throws: CryptoError.self) { _ = try PBKDF2.sha256(password: [1], salt: [2], iterations: 0) }
    }

    @Test func constantTimeEqualityComparesContentAndLength() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
    }
}
