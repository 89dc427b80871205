/// GPT-2's byte-level BPE alphabet: every byte 0…255 is shown as a printable Unicode character so tokens can be
/// stored as text (CTranslate2's `vocabulary.txt`, Hugging Face's `tokenizer.json`). whisper.cpp wants the raw
/// bytes, so conversion maps each character back to its byte.
///
/// The printable bytes `!`…`~`, `¡`…`¬` and `®`…`ÿ` stand for themselves; the other 68 bytes (control
/// characters, space, DEL, NBSP, soft hyphen) are shifted to U+0100 and up, in byte order (space → `Ġ`).
public enum ByteLevelVocabulary {
    /// The character that stands for each byte, indexed by byte value.
    public static let characters: [Unicode.Scalar] = {
        var table = [Unicode.Scalar](repeating: " ", count: 256)
        var shifted: UInt32 = 256
        for byte in 0..<256 {
            let printable = (33...126).contains(byte) || (161...172).contains(byte) || (174...255).contains(byte)
            if printable {
                table[byte] = Unicode.Scalar(UInt32(byte))!
            } else {
                table[byte] = Unicode.Scalar(shifted)!
                shifted += 1
            }
        }
        return table
    }()

    private static let bytesByScalar: [UInt32: UInt8] = {
        var map: [UInt32: UInt8] = [:]
        for (byte, scalar) in characters.enumerated() { map[scalar.value] = UInt8(byte) }
        return map
    }()

    /// The raw bytes a byte-level token stands for, or nil when the token has a character outside the alphabet
    /// (then it is not a byte-level BPE token, e.g. a SentencePiece piece).
    public static func decode(_ token: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(token.unicodeScalars.count)
        for scalar in token.unicodeScalars {
            guard let byte = bytesByScalar[scalar.value] else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// The byte-level spelling of raw token bytes (the inverse of ``decode(_:)``).
    public static func encode(_ bytes: [UInt8]) -> String {
        var text = String.UnicodeScalarView()
        for byte in bytes { text.append(characters[Int(byte)]) }
        return String(text)
    }
}
