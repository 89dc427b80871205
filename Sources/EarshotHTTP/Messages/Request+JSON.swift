import Foundation

extension Request {
    /// Decodes the buffered body as JSON.
    ///
    /// Throws ``HTTPError/invalidArgument(_:)`` (400) with a message naming the problem: an empty body, malformed
    /// JSON, a missing field or a field of the wrong type (with its key path, e.g. `parts[2].etag`).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(HTTPError) -> T {
        let bytes = self.bytes
        guard !bytes.isEmpty else {
            throw HTTPError.invalidArgument("request body is empty; send a JSON \(T.self) object")
        }
        do {
            return try JSONCoding.decoder.decode(T.self, from: Data(bytes))
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
