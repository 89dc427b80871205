import EarshotCrypto
import Foundation
import Testing

@testable import EarshotKit

@Suite struct CRC32Tests {
    /// The CRC-32/ISO-HDLC check value and published strings.
    @Test(arguments: [
        ("", 0x0000_0000 as UInt32),
        ("123456789", 0xCBF4_3926),
        ("a", 0xE8B7_BE43),
        ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ])
    func publishedVectors(input: String, expected: UInt32) {
        #expect(EarshotKit.CRC32.checksum(Array(input.utf8)) == expected)
        #expect(EarshotCrypto.CRC32.checksum(Array(input.utf8)) == expected)
    }

    /// S3's header form: the 4 bytes big-endian in base64.
    @Test func headerForm() {
        #expect(EarshotKit.CRC32.base64(0xCBF4_3926) == "y/Q5Jg==")
        #expect(EarshotCrypto.CRC32.base64(0xCBF4_3926) == "y/Q5Jg==")
        #expect(EarshotCrypto.CRC32.parse(base64: "y/Q5Jg==") == 0xCBF4_3926)
        #expect(EarshotCrypto.CRC32.parse(base64: "y/Q5") == nil)  // 3 bytes
        #expect(EarshotCrypto.CRC32.parse(base64: "not base64") == nil)
    }

    /// Random data of lengths around the 16-byte stride, fed in random-sized pieces, agrees with zlib's `crc32`.
    @Test func agreesWithZlibOnRandomData() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...70) + [1000, 4099, 65_537, 1 << 20] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var crc = EarshotKit.CRC32()
            var offset = 0
            while offset < length {
                let piece = min(Int.random(in: 1...5000, using: &generator), length - offset)
                bytes[offset..<offset + piece].withUnsafeBytes { crc.update($0) }
                offset += piece
            }
            #expect(crc.value == EarshotCrypto.CRC32.checksum(bytes), "length \(length)")
        }
    }

    /// An S3 bucket's SigV4-presigned URL is sent without the header unless its signature covers it.
    @Test func checksumHeaderOnlyWhereThePresignedURLAllowsIt() throws {
        let earshot = "http://127.0.0.1:8080/open/partner/files/upload/parts/upl_1/1?expires=1&key=k&signature=s"
        let s3 =
            "http://127.0.0.1:9000/b/files/f?partNumber=1&uploadId=u&X-Amz-Algorithm=AWS4-HMAC-SHA256"
            + "&X-Amz-SignedHeaders=host&X-Amz-Signature=abc"
        let signed = "http://127.0.0.1:9000/b/f?X-Amz-SignedHeaders=host%3Bx-amz-checksum-crc32&X-Amz-Signature=abc"
        #expect(PartPut.mayCarryChecksum(try #require(URL(string: earshot))))
        #expect(!PartPut.mayCarryChecksum(try #require(URL(string: s3))))
        #expect(PartPut.mayCarryChecksum(try #require(URL(string: signed))))
    }
}

/// The uploaders' part reader: each part's bytes and CRC-32, and a file that shrank since the plan.
@Suite struct FilePartTests {
    @Test func readsEachPartWithItsChecksum() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fileparts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("audio.m4a")
        // Parts larger than the reader's 1 MiB step, and a short last one.
        let chunk = (3 << 20) / 2
        var generator = SystemRandomNumberGenerator()
        let content = Data((0..<(2 * chunk + 777)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try content.write(to: file)
        for number in 1...3 {
            let (bytes, crc) = try FilePart.read(file, number: number, chunkSize: chunk, fileSize: Int64(content.count))
            let expected = content[(number - 1) * chunk..<min(number * chunk, content.count)]
            #expect(bytes == expected)
            #expect(crc == EarshotKit.CRC32.checksum(Array(expected)))
        }
        // The file lost bytes after the plan: the last part cannot be read whole.
        try content.prefix(2 * chunk + 100).write(to: file)
        #expect {
            _ = try FilePart.read(file, number: 3, chunkSize: chunk, fileSize: Int64(content.count))
        } throws: { error in
            (error as? EarshotError)?.code == .fileSystem
                && "\(error)".contains("shorter than expected")
        }
    }
}
