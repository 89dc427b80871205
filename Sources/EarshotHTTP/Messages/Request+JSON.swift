import Foundation

extension Request {
    /// The header with which a client asks that fields this server does not know be ignored rather than refused
    /// (`Earshot-Unknown-Fields: ignore`), for a client written against a newer API that sends optional new fields.
    public static let unknownFieldsHeader = "Earshot-Unknown-Fields"

    /// Decodes the buffered body as JSON, strictly: every field must be one `T` reads.
    ///
    /// Throws ``HTTPError/invalidArgument(_:)`` (400) with a message naming the problem: an empty body, malformed
    /// JSON, a missing field or a field of the wrong type (with its key path, e.g. `parts[2].etag`), or a field `T`
    /// does not take (``UnknownFields``: `unknown field \`diarize\``, listing the fields that object takes) — unless
    /// the request carries ``unknownFieldsHeader`` `: ignore`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(HTTPError) -> T {
        let bytes = self.bytes
        guard !bytes.isEmpty else {
            throw HTTPError.invalidArgument("request body is empty; send a JSON \(T.self) object")
        }
        do {
            let data = Data(bytes)
            let value = try JSONCoding.decoder.decode(T.self, from: data)
            if headers[Self.unknownFieldsHeader]?.lowercased() != "ignore",
                let unknown = UnknownFields.first(in: data, for: T.self)
            {
                let known = unknown.known.isEmpty ? "" : " (fields here: \(unknown.known.joined(separator: ", ")))"
                throw HTTPError.invalidArgument(
                    "unknown field `\(unknown.path)`\(known): remove it, or send '\(Self.unknownFieldsHeader): ignore' to "
                        + "have fields this server does not know ignored")
            }
            return value
        } catch let error as HTTPError {
            throw error
        } catch let error as DecodingError {
            throw HTTPError.invalidArgument(Self.explain(error))
        } catch {
            throw HTTPError.invalidArgument("request body is not valid JSON: \(error)")
        }
    }

    static func explain(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var out = ""
            for key in keys {
                if let index = key.intValue {
                    out += "[\(index)]"
                } else {
                    out += out.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
            return out.isEmpty ? "(root)" : out
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "request body is not valid JSON"
        case .dataCorrupted(let context):
            return "field `\(path(context.codingPath))` is invalid: \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "missing field `\(path(context.codingPath + [key]))`"
        case .typeMismatch(let type, let context):
            return "field `\(path(context.codingPath))` must be \(Self.jsonTypeName(type))"
        case .valueNotFound(let type, let context):
            return "field `\(path(context.codingPath))` must be \(Self.jsonTypeName(type)), not null"
        @unknown default:
            return "request body does not match the expected JSON shape"
        }
    }

    private static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        default: "of type \(type)"
        }
    }
}
