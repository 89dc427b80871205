import Testing

@testable import EarshotModels

/// GPT-2's byte-to-unicode alphabet, decoded back to the raw bytes whisper.cpp stores.
@Suite struct ByteLevelVocabularyTests {
    @Test(arguments: [
        ("Ġthe", Array(" the".utf8)),
        ("Ċ", [0x0A]),
        ("ĠÃ©t", Array(" ét".utf8)),
        ("âĢĻ", Array("’".utf8)),  // U+2019 is E2 80 99
        ("Hello", Array("Hello".utf8)),
        ("", []),
        ("ĀĉĠ", [0x00, 0x09, 0x20]),
        ("Ń", [0xAD]),  // the soft hyphen is the last shifted byte
    ])
    func knownTokensDecodeToTheirBytes(token: String, bytes: [UInt8]) {
        #expect(ByteLevelVocabulary.decode(token) == bytes)
        #expect(ByteLevelVocabulary.encode(bytes) == token)
    }

    @Test func theAlphabetIsABijectionOfAllBytes() {
        let characters = ByteLevelVocabulary.characters
        #expect(Set(characters).count == 256)
        let all = (0...255).map(UInt8.init)
        #expect(ByteLevelVocabulary.decode(ByteLevelVocabulary.encode(all)) == all)
    }

    @Test func charactersOutsideTheAlphabetAreRejected() {
        #expect(ByteLevelVocabulary.decode("▁the") == nil)  // a SentencePiece piece
        #expect(ByteLevelVocabulary.decode("€") == nil)
        #expect(ByteLevelVocabulary.decode(" ") == nil)  // a raw space is never in a byte-level token
    }
}
