import EarshotCore
import Testing

@Suite struct IdentifierTests {
    @Test func madeIdentifiersAreValidAndDistinct() {
        let ids = (0..<1000).map { _ in Identifier.make(prefix: "file") }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.hasPrefix("file_"))
            #expect(Identifier.isValid(id, prefix: "file"))
            #expect(!Identifier.isValid(id, prefix: "up"))
        }
    }

    @Test(arguments: [
        "", "file_", "../etc/passwd", "file_../../../../etc/pass", "file_ABCDEFGHJKMNPQRSTVWX",
        "file_0123456789abcdefghj/", "FILE_0123456789abcdefghjk", "_0123456789abcdefghjk",
        "file_0123456789abcdefghjkm", "toolongpfx_0123456789abcdefghjk", "file_0123456789abcdefghi.",
    ])
    func rejectsAnythingThatIsNotAnIdentifier(candidate: String) {
        #expect(!Identifier.isValid(candidate))
    }
}
