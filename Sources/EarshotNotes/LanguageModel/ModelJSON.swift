import Foundation

/// Reads the JSON object out of a model's answer, tolerating what models wrap around it (code fences, a sentence
/// before or after).
enum ModelJSON {
    /// Decodes `T` from the outermost `{…}` of `answer`.
    /// - Throws: `invalidResponse` naming `what` and quoting the start of the answer.
    static func decode<T: Decodable>(_ type: T.Type, from answer: String, what: String) throws -> T {
        guard let open = answer.firstIndex(of: "{"), let close = answer.lastIndex(of: "}"), open < close else {
            throw NotesError(.invalidResponse, "the \(what) is not JSON: \(excerpt(answer))")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(answer[open...close].utf8))
        } catch {
            throw NotesError(.invalidResponse, "the \(what) is not the JSON asked for: \(excerpt(answer))")
        }
    }

    static func excerpt(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count > 160 ? "\"\(flat.prefix(160))…\"" : "\"\(flat)\""
    }
}

/// A whole number the model may also have written as a string ("3") or a float (3.0).
struct LenientInt: Decodable {
    let value: Int?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let integer = try? container.decode(Int.self) {
            value = integer
        } else if let number = try? container.decode(Double.self), number.rounded() == number, abs(number) < 1e9 {
            value = Int(number)
        } else if let text = try? container.decode(String.self) {
            value = Int(text.trimmingCharacters(in: CharacterSet(charactersIn: " []#")))
        } else {
            value = nil
        }
    }
}
