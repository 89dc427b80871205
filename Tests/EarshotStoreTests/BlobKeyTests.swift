import EarshotStore
import Testing

@Suite struct BlobKeyTests {
    @Test(arguments: [
        "uploads/file_7k2m0000000000000000/part-00001", "a", "0", "recordings/rec_1/audio.m4a", "a.b-c_d/e",
    ])
    func wellFormedKeysAreAccepted(_ key: String) throws {
        #expect(try BlobKey(key).rawValue == key)
    }

    @Test(arguments: [
        "",  // empty
        "/etc/passwd", "/a",  // absolute
        "..", ".", "../etc/passwd", "a/../../etc", "a/./b", "a/..", "uploads/../../root",  // dot segments
        "%2e%2e/secret", "a/%2e%2e/b", "a%2fb",  // percent-encoding is not decoded, and % is not allowed
        "a//b", "a/", "//a",  // empty segments
        "A/b", "Uploads",  // uppercase
        "a\\b", "..\\..\\windows",  // backslashes
        "a\0b", "a/\0", "a\nb", "a\tb",  // NUL and control characters
        "a b", "a:b", "a*b", "~/x", "$HOME",  // shell and path metacharacters
        "\u{FF0E}\u{FF0E}/x", "a/\u{2024}\u{2024}/b", "a\u{2215}b", "a\u{FF0F}b", "caf\u{E9}",  // non-ASCII look-alikes
        ".hidden", "a/.part-1.meta", ".tmp/put_x", "-rf", "a/_b",  // segments must start with a-z or 0-9
    ])
    func traversalAndMalformedKeysAreRejected(_ key: String) {
        #expect {
            try BlobKey(key)
        } throws: { error in
            (error as? StoreError)?.code == .invalidKey
        }
    }

    @Test func lengthAndDepthAreBounded() throws {
        #expect(throws: StoreError.self) {
            try BlobKey(String(repeating: "a", count: BlobKey.maximumSegmentLength + 1))
        }
        #expect(throws: StoreError.self) {
            try BlobKey(Array(repeating: "a", count: BlobKey.maximumDepth + 1).joined(separator: "/"))
        }
        #expect(throws: StoreError.self) {
            try BlobKey(Array(repeating: String(repeating: "b", count: 100), count: 6).joined(separator: "/"))
        }
        _ = try BlobKey(Array(repeating: "a", count: BlobKey.maximumDepth).joined(separator: "/"))
    }

    @Test func errorsSayWhatIsWrong() {
        #expect {
            try BlobKey("uploads/../x")
        } throws: { error in
            let message = (error as? StoreError)?.message ?? ""
            return message.contains("uploads/../x") && message.contains("start with a-z or 0-9")
        }
        #expect {
            try BlobKey("a\0b")
        } throws: { error in
            (error as? StoreError)?.message.contains("\\u{0}") == true
        }
    }

    @Test func segmentsAndAppending() throws {
        let key = try BlobKey("uploads/file_x")
        #expect(key.segments == ["uploads", "file_x"])
        #expect(try key.appending("part-00002").rawValue == "uploads/file_x/part-00002")
        #expect(throws: StoreError.self) { try key.appending("..") }
        #expect(try BlobKey(segments: ["a", "b"]).name == "b")
    }
}
