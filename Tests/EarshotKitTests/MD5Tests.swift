import EarshotCrypto
import Foundation
import Testing

@testable import EarshotKit

@Suite struct MD5Tests {
    /// The test suite of RFC 1321 (appendix A.5).
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        (
            "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
            "57edf4a22be3c955ac49da2e2107b67a"
        ),
    ])
    func rfc1321Vectors(input: String, expected: String) {
        #expect(MD5.hex(Array(input.utf8)) == expected)
    }

    /// Random data of every length around the block and padding boundaries, fed in random-sized pieces, agrees
    /// with libcrypto's MD5.
    @Test func agreesWithLibcryptoOnRandomData() throws {
        var generator = SystemRandomNumberGenerator()
        let lengths = Array(0...130) + [1000, 4095, 4096, 65_537, 1 << 20]
        for length in lengths {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var reference = try StreamingHasher(.md5)
            reference.update(bytes)
            var ours = MD5()
            var offset = 0
            while offset < bytes.count {
                let piece = min(Int.random(in: 1...200, using: &generator), bytes.count - offset)
                ours.update(Array(bytes[offset..<offset + piece]))
                offset += piece
            }
            let expected = reference.finalize().hex
            let actual = MD5.hexString(ours.finalize())
            #expect(actual == expected, "length \(length)")
        }
    }
}
