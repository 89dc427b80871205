import EarshotCrypto
import Testing

/// Published test vectors: FIPS 180-2 (SHA-256), RFC 1321 (MD5), RFC 4231 (HMAC-SHA256).
@Suite struct DigestTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func sha256MatchesFIPSVectors(input: String, expected: String) {
        #expect(DigestAlgorithm.sha256.hash(Array(input.utf8)).hex == expected)
    }

    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
    ])
    func md5MatchesRFC1321Vectors(input: String, expected: String) {
        #expect(DigestAlgorithm.md5.hash(Array(input.utf8)).hex == expected)
    }

    @Test func streamingEqualsOneShotAcrossChunkBoundaries() throws {
        let data = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var hasher = try StreamingHasher(.sha256)
        var offset = 0
        for size in [1, 7, 4096, 65536, 1] + Array(repeating: 1000, count: 100) where offset < data.count {
            let end = min(offset + size, data.count)
            hasher.update(Array(data[offset..<end]))
            offset = end
        }
        hasher.update(Array(data[offset...]))
        #expect(hasher.finalize() == DigestAlgorithm.sha256.hash(data))
    }

    @Test func millionAsMatchesFIPSLongVector() throws {
        var hasher = try StreamingHasher(.sha256)
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        #expect(hasher.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func hmacSHA256MatchesRFC4231() {
        // Test case 1
        let key1 = [UInt8](repeating: 0x0b, count: 20)
        #expect(
            HMAC.authenticationCode(key: key1, message: Array("Hi There".utf8)).hex
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        // Test case 2
        #expect(
            HMAC.authenticationCode(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)).hex
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 6: key longer than the block size
        let key6 = [UInt8](repeating: 0xaa, count: 131)
        #expect(
            HMAC.authenticationCode(
                key: key6, message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
            ).hex == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    /// The same RFC 4231 vectors through a prepared key, used many times and from several threads at once.
    @Test func aPreparedKeyGivesTheRFC4231CodesEveryTime() async {
        let cases: [(key: [UInt8], message: String, code: String)] = [
            (
                [UInt8](repeating: 0x0b, count: 20), "Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), "what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
        ]
        for (key, message, code) in cases {
            let prepared = HMAC.PreparedKey(secret: key)
            let wrong = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        (0..<500).filter { _ in prepared.authenticationCode(Array(message.utf8)).hex != code }.count
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(wrong == 0, "\(message)")
        }
        #expect(
            HMAC.PreparedKey(.md5, secret: Array("Jefe".utf8)).authenticationCode(
                Array("what do ya want for nothing?".utf8)
            ).hex == "750c783e6ab0b503eaa86e310a5db738")
    }

    @Test func hexRoundTripsAndRejectsGarbage() {
        let digest = DigestAlgorithm.sha256.hash(Array("abc".utf8))
        #expect(Digest(hex: digest.hex) == digest)
        #expect(Digest(hex: digest.hex.uppercased()) == digest)
        #expect(Digest(hex: "abc") == nil)
        #expect(Digest(hex: "zz") == nil)
        #expect(digest.constantTimeEquals(Digest(hex: digest.hex)!))
        #expect(!digest.constantTimeEquals(DigestAlgorithm.sha256.hash(Array("abd".utf8))))
    }

    @Test func secureRandomGivesDistinctBytes() throws {
        let a = try SecureRandom.bytes(32)
        let b = try SecureRandom.bytes(32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
        #expect(try SecureRandom.bytes(0).isEmpty)
    }

    @Test func streamingDigestsEqualOneShotDigestsOfTheSameBytes() throws {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let both = try StreamingDigests([.sha256, .md5])
        for start in stride(from: 0, to: bytes.count, by: 4096) {
            bytes[start..<min(start + 4096, bytes.count)].withUnsafeBytes { both.update($0) }
        }
        #expect(both.byteCount == 100_000)
        let digests = both.finalize()
        #expect(digests[.sha256] == DigestAlgorithm.sha256.hash(bytes))
        #expect(digests[.md5] == DigestAlgorithm.md5.hash(bytes))
        #expect(both.finalize().isEmpty)  // finished once

        let shaOnly = try StreamingDigests([.sha256])
        #expect(shaOnly.finalize().keys.sorted { $0.rawValue < $1.rawValue } == [.sha256])
    }
}
