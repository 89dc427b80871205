import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotAccounts

/// Argon2id through libargon2: RFC 9106's test vector, and the same hashes as PyPI's `argon2-cffi` in both
/// directions (installed into `$EARSHOT_HOME/venv` by `scripts/setup`).
@Suite struct Argon2Tests {
    /// RFC 9106 §5.3: Argon2id, t=3, m=32 KiB, p=4, password 32 × 0x01, salt 16 × 0x02, secret 8 × 0x03,
    /// associated data 12 × 0x04, 32-byte tag.
    @Test func rfc9106Argon2idVector() throws {
        let tag = try Argon2.tag(
            password: Array(repeating: 0x01, count: 32), salt: Array(repeating: 0x02, count: 16),
            secret: Array(repeating: 0x03, count: 8), associatedData: Array(repeating: 0x04, count: 12),
            parameters: Argon2Parameters(memoryKiB: 32, iterations: 3, parallelism: 4))
        #expect(
            tag.map { String(format: "%02x", $0) }.joined()
                == "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659")
    }

    @Test func aHashVerifiesItsPasswordOnlyAndCarriesItsParameters() async throws {
        let hasher = PasswordHasher()
        let hash = try await hasher.hash("correct horse battery staple")
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(try await hasher.verify("correct horse battery staple", against: hash))
        #expect(try await !hasher.verify("correct horse battery stapler", against: hash))
        #expect(try await !hasher.verify("anything", against: hasher.decoy()))
        #expect(try await !hasher.verify("anything", against: "pbkdf2-sha256$1$AA$AA"))
        #expect(!hasher.needsRehash(hash))
        let stronger = PasswordHasher(
            configuration: .init(parameters: Argon2Parameters(memoryKiB: 32 * 1024, iterations: 2, parallelism: 1)))
        #expect(stronger.needsRehash(hash))
    }

    @Test func passwordsAreComparedAfterUnicodeNormalisation() async throws {
        let hasher = PasswordHasher()
        // "é" typed as one code point (NFC) and as "e" + combining acute (NFD) is the same password.
        let hash = try await hasher.hash("caf\u{E9} au lait")
        #expect(try await hasher.verify("cafe\u{301} au lait", against: hash))
    }

    @Test func owaspMinimumIsEnforcedByTheParameterCheck() {
        #expect(Argon2Parameters.owaspMinimum.meetsOWASPMinimum)
        #expect(Argon2Parameters(memoryKiB: 47104, iterations: 1, parallelism: 1).meetsOWASPMinimum)
        #expect(Argon2Parameters(memoryKiB: 9216, iterations: 4, parallelism: 1).meetsOWASPMinimum)
        #expect(!Argon2Parameters(memoryKiB: 19456, iterations: 1, parallelism: 1).meetsOWASPMinimum)
        #expect(!Argon2Parameters(memoryKiB: 4096, iterations: 10, parallelism: 1).meetsOWASPMinimum)
    }

    static let crossCheck = #"""
        import json, sys
        from argon2 import PasswordHasher, low_level
        from argon2.exceptions import VerifyMismatchError
        ours, password = sys.argv[1], sys.argv[2]
        ph = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1, hash_len=32, salt_len=16)
        out = {"verifies_ours": ph.verify(ours, password)}
        try:
            ph.verify(ours, password + "x")
            out["rejects_wrong"] = False
        except VerifyMismatchError:
            out["rejects_wrong"] = True
        out["theirs"] = ph.hash(password)
        out["raw"] = low_level.hash_secret_raw(password.encode(), b"earshot-salt-16b", 2, 19456, 1, 32,
                                               low_level.Type.ID).hex()
        print(json.dumps(out))
        """#

    @Test func agreesWithArgon2CFFIBothWays() async throws {
        let python = TestEnvironment.home.appendingPathComponent("venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("no \(python.path): run scripts/setup (it installs argon2-cffi into the venv)")
            return
        }
        let password = "Pässwörd mit Ümlauten ✓"
        let hasher = PasswordHasher()
        let ours = try await hasher.hash(password)
        let result = try await Program(python).run(["-c", Self.crossCheck, ours, password], timeout: .seconds(120))
        try #require(result.status == 0, "argon2-cffi missing? run scripts/setup: \(result)")
        let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(out["verifies_ours"] as? Bool == true)
        #expect(out["rejects_wrong"] as? Bool == true)
        let theirs = try #require(out["theirs"] as? String)
        #expect(try await hasher.verify(password, against: theirs))
        #expect(try await !hasher.verify(password + "x", against: theirs))
        let raw = try Argon2.tag(
            password: Array(password.utf8), salt: Array("earshot-salt-16b".utf8), parameters: .owaspMinimum)
        #expect(raw.map { String(format: "%02x", $0) }.joined() == out["raw"] as? String)
    }
}
