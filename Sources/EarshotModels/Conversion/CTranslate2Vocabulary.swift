import Foundation

/// The text tokens of a CTranslate2 Whisper model, as raw bytes in id order.
///
/// CTranslate2 stores the vocabulary as byte-level BPE text (`vocabulary.txt`, one token a line, or
/// `vocabulary.json`, a JSON array; `tokenizer.json` as a fallback). whisper.cpp's file holds only the ordinary
/// tokens (ids below `<|endoftext|>`) as raw bytes — exactly `gpt2.tiktoken` (50256 tokens) or
/// `multilingual.tiktoken` (50257, the last one empty) — and derives the special tokens itself.
struct CTranslate2Vocabulary {
    /// Raw bytes of each ordinary token, index = token id.
    let tokens: [[UInt8]]

    static let endOfText = "<|endoftext|>"

    init(directory: String) throws(ModelError) {
        let text: [String]
        let manager = FileManager.default
        if let data = manager.contents(atPath: directory + "/vocabulary.txt") {
            var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            if lines.last == "" { lines.removeLast() }
            text = lines.map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        } else if let data = manager.contents(atPath: directory + "/vocabulary.json") {
            guard let array = try? JSONDecoder().decode([String].self, from: data) else {
                throw ModelError(.malformedModel, "\(directory)/vocabulary.json is not a JSON array of strings")
            }
            text = array
        } else if let data = manager.contents(atPath: directory + "/tokenizer.json") {
            text = try Self.tokenizerVocabulary(data, source: directory + "/tokenizer.json")
        } else {
            throw ModelError(
                .malformedModel,
                "\(directory) has no vocabulary.txt, vocabulary.json or tokenizer.json; "
                    + "copy the tokenizer files next to model.bin")
        }
        try self.init(text: text, source: directory)
    }

    init(text: [String], source: String) throws(ModelError) {
        guard let end = text.firstIndex(of: Self.endOfText) else {
            throw ModelError(
                .unsupportedModel, "\(source): the vocabulary has no \(Self.endOfText); not a Whisper vocabulary")
        }
        var tokens: [[UInt8]] = []
        tokens.reserveCapacity(end)
        for (id, token) in text[..<end].enumerated() {
            guard let bytes = ByteLevelVocabulary.decode(token) else {
                throw ModelError(
                    .unsupportedModel,
                    "\(source): token \(id) '\(token)' is not byte-level BPE; not a Whisper vocabulary")
            }
            tokens.append(bytes)
        }
        self.tokens = tokens
    }

    /// `model.vocab` of a Hugging Face tokenizer (a token → id map), in id order.
    private static func tokenizerVocabulary(_ data: Data, source: String) throws(ModelError) -> [String] {
        struct Tokenizer: Decodable {
            struct Model: Decodable { let vocab: [String: Int] }
            struct Added: Decodable {
                let id: Int
                let content: String
            }
            let model: Model
            let added_tokens: [Added]?
        }
        guard let tokenizer = try? JSONDecoder().decode(Tokenizer.self, from: data) else {
            throw ModelError(.malformedModel, "\(source) has no model.vocab map")
        }
        var byID: [Int: String] = [:]
        for (token, id) in tokenizer.model.vocab { byID[id] = token }
        for added in tokenizer.added_tokens ?? [] { byID[added.id] = added.content }
        let count = (byID.keys.max() ?? -1) + 1
        return (0..<count).map { byID[$0] ?? "" }
    }
}
