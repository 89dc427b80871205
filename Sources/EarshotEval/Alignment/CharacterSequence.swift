/// The character sequence that CER is computed on.
///
/// Normalised tokens are joined with one space, except between two CJK characters, which Chinese writes
/// without spaces: `["hello", "world"]` → `hello world` (11 characters, as jiwer counts them) and
/// `["我", "有", "3", "个"]` → `我有 3 个` (a space only around the ASCII token).
/// Characters are Unicode scalars, as Python counts them.
enum CharacterSequence {
    static func scalars(of tokens: [String]) -> [Int32] {
        var out: [Int32] = []
        var previousWasCJK = false
        for (index, token) in tokens.enumerated() {
            let isCJK = token.unicodeScalars.count == 1 && CharacterRules.isCJK(token.unicodeScalars.first!)
            if index > 0 && !(isCJK && previousWasCJK) { out.append(0x20) }
            for scalar in token.unicodeScalars { out.append(Int32(bitPattern: scalar.value)) }
            previousWasCJK = isCJK
        }
        return out
    }
}
