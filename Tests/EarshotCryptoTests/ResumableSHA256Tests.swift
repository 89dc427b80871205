import EarshotCrypto
import Testing

/// A running SHA-256 saved and resumed (a multipart upload's digest across parts and restarts) gives exactly the
/// digest of the whole input.
@Suite struct ResumableSHA256Tests {
    static func bytes(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    @Test(arguments: [[64], [5 << 20, 5 << 20, 1234], [1, 63, 64, 65, 0, 200], [1000, 24, 7]])
    func savingAndResumingBetweenChunksGivesTheOneShotDigest(chunks: [Int]) throws {
        let input = Self.bytes(chunks.reduce(0, +))
        var state = ResumableSHA256().state
        var offset = 0
        for size in chunks {
            var digest = try ResumableSHA256(state: state)
            digest.update(input[offset..<offset + size])
            offset += size
            #expect(digest.byteCount == Int64(offset))
            state = digest.state
            #expect(state.count == 40 + offset % 64)
        }
        #expect(try ResumableSHA256(state: state).finalize() == DigestAlgorithm.sha256.hash(input))
    }

    @Test func knownVectorAndFinalizeLeavesTheDigestUsable() {
        var digest = ResumableSHA256()
        digest.update(Array("abc".utf8))
        #expect(digest.finalize().hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        digest.update(Array("def".utf8))
        #expect(digest.finalize() == DigestAlgorithm.sha256.hash(Array("abcdef".utf8)))
    }

    @Test(arguments: [0, 39, 41, 104])
    func aStateOfTheWrongShapeIsRefused(length: Int) {
        #expect(throws: CryptoError.self) { try ResumableSHA256(state: [UInt8](repeating: 0, count: length)) }
    }
}
