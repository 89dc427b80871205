import Foundation

/// Finds the fields of a JSON body that a `Decodable` type does not read, so a misspelt or unsupported field is a
/// 400 naming it instead of being ignored.
///
/// The type's own `init(from:)` is run once more over the parsed JSON with a decoder that records, for every JSON
/// object it opens, which keys the type asked for (present or not: `decodeIfPresent` on an absent key counts). A
/// key of the body that the type never asked for is unknown. Objects decoded as dictionaries (`[String: T]`) read
/// all their keys. The values the probe hands out mirror the JSON, so a type that `JSONDecoder` accepted decodes the
/// same way here; `Date`, `Data`, `URL` and `Decimal` are skipped over (their formats are `JSONDecoder`'s business).
enum UnknownFields {
    /// An unknown field: its path (`diarization.speaker_count`, `part_list[1].tag`) and the fields the type reads
    /// in that object.
    struct Finding: Equatable {
        var path: String
        var known: [String]
    }

    /// The first unknown field of `body` for `type` (in path order), or nil when every field is read.
    static func first<T: Decodable>(in body: Data, for type: T.Type) -> Finding? {
        guard let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return nil
        }
        let recorder = Recorder()
        // A probe that fails (a type whose decoding depends on JSONDecoder's own strategies) reports nothing rather
        // than refusing a body JSONDecoder accepted.
        guard (try? T(from: ProbeDecoder(value: json, codingPath: [], recorder: recorder))) != nil else { return nil }
        return recorder.firstUnknown()
    }

    /// What the probe saw: every object's keys, and which the type asked for.
    final class Recorder {
        struct Object {
            var keys: [String]
            var asked: Set<String> = []
            var all = false
        }
        var objects: [String: Object] = [:]

        func open(_ path: String, keys: [String]) {
            if objects[path] == nil { objects[path] = Object(keys: keys) }
        }
        func ask(_ path: String, _ key: String) { objects[path]?.asked.insert(key) }
        func askAll(_ path: String) { objects[path]?.all = true }

        func firstUnknown() -> Finding? {
            for path in objects.keys.sorted() {
                guard let object = objects[path], !object.all else { continue }
                if let key = object.keys.sorted().first(where: { !object.asked.contains($0) }) {
                    return Finding(path: path.isEmpty ? key : "\(path).\(key)", known: object.asked.sorted())
                }
            }
            return nil
        }
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        var out = ""
        for key in codingPath {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                out += out.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return out
    }

    struct IndexKey: CodingKey {
        var stringValue: String { "\(intValue!)" }
        var intValue: Int?
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    struct ProbeDecoder: Decoder {
        let value: Any
        let codingPath: [any CodingKey]
        let recorder: Recorder
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard let object = value as? [String: Any] else { throw mismatch([String: Any].self) }
            let path = UnknownFields.path(codingPath)
            recorder.open(path, keys: Array(object.keys))
            return KeyedDecodingContainer(
                KeyedProbe<Key>(object: object, path: path, codingPath: codingPath, recorder: recorder))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard let array = value as? [Any] else { throw mismatch([Any].self) }
            return UnkeyedProbe(array: array, codingPath: codingPath, recorder: recorder)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            SingleProbe(value: value, codingPath: codingPath, recorder: recorder)
        }

        func mismatch(_ type: Any.Type) -> DecodingError {
            .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "probe"))
        }
    }

    /// Decodes `T` from `value` the way JSONDecoder would (primitives from the JSON value, the rest recursively).
    static func decode<T: Decodable>(_ type: T.Type, from value: Any, codingPath: [any CodingKey], recorder: Recorder)
        throws -> T
    {
        let failure = DecodingError.typeMismatch(T.self, .init(codingPath: codingPath, debugDescription: "probe"))
        switch type {
        case is Date.Type: return Date() as! T
        case is Data.Type: return Data() as! T
        case is URL.Type: return URL(fileURLWithPath: "/") as! T
        case is Decimal.Type: return Decimal() as! T
        case is String.Type:
            guard let string = value as? String else { throw failure }
            return string as! T
        case is Bool.Type:
            guard let bool = boolValue(value) else { throw failure }
            return bool as! T
        default:
            if let number = numberValue(value), let converted = convert(number, to: type) { return converted }
            return try T(from: ProbeDecoder(value: value, codingPath: codingPath, recorder: recorder))
        }
    }

    // JSONDecoder has already checked every value's type; the probe only needs one of the right type.
    static func boolValue(_ value: Any) -> Bool? {
        (value as? Bool) ?? (value as? NSNumber)?.boolValue
    }

    static func numberValue(_ value: Any) -> NSNumber? {
        value is String ? nil : value as? NSNumber
    }

    static func convert<T>(_ number: NSNumber, to type: T.Type) -> T? {
        switch type {
        case is Int.Type: number.intValue as? T
        case is Int64.Type: number.int64Value as? T
        case is Int32.Type: number.int32Value as? T
        case is Int16.Type: number.int16Value as? T
        case is Int8.Type: number.int8Value as? T
        case is UInt.Type: number.uintValue as? T
        case is UInt64.Type: number.uint64Value as? T
        case is UInt32.Type: number.uint32Value as? T
        case is UInt16.Type: number.uint16Value as? T
        case is UInt8.Type: number.uint8Value as? T
        case is Double.Type: number.doubleValue as? T
        case is Float.Type: number.floatValue as? T
        default: nil
        }
    }

    struct KeyedProbe<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let object: [String: Any]
        let path: String
        let codingPath: [any CodingKey]
        let recorder: Recorder

        var allKeys: [Key] {
            recorder.askAll(path)
            return object.keys.compactMap { Key(stringValue: $0) }
        }

        func contains(_ key: Key) -> Bool {
            recorder.ask(path, key.stringValue)
            return object[key.stringValue] != nil
        }

        func value(_ key: Key) throws -> Any {
            recorder.ask(path, key.stringValue)
            guard let value = object[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "probe"))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool { try value(key) is NSNull }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try UnknownFields.decode(type, from: try value(key), codingPath: codingPath + [key], recorder: recorder)
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            recorder.ask(path, key.stringValue)
            guard let value = object[key.stringValue], !(value is NSNull) else { return nil }
            return try UnknownFields.decode(type, from: value, codingPath: codingPath + [key], recorder: recorder)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try ProbeDecoder(value: try value(key), codingPath: codingPath + [key], recorder: recorder)
                .container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try ProbeDecoder(value: try value(key), codingPath: codingPath + [key], recorder: recorder)
                .unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            recorder.askAll(path)
            return ProbeDecoder(value: object, codingPath: codingPath, recorder: recorder)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            ProbeDecoder(value: object[key.stringValue] ?? NSNull(), codingPath: codingPath + [key], recorder: recorder)
        }
    }

    struct UnkeyedProbe: UnkeyedDecodingContainer {
        let array: [Any]
        let codingPath: [any CodingKey]
        let recorder: Recorder
        var currentIndex = 0
        var count: Int? { array.count }
        var isAtEnd: Bool { currentIndex >= array.count }

        init(array: [Any], codingPath: [any CodingKey], recorder: Recorder) {
            self.array = array
            self.codingPath = codingPath
            self.recorder = recorder
        }

        mutating func next() throws -> (Any, [any CodingKey]) {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "probe"))
            }
            defer { currentIndex += 1 }
            return (array[currentIndex], codingPath + [IndexKey(currentIndex)])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, array[currentIndex] is NSNull else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, path) = try next()
            return try UnknownFields.decode(type, from: value, codingPath: path, recorder: recorder)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            let (value, path) = try next()
            return try ProbeDecoder(value: value, codingPath: path, recorder: recorder).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (value, path) = try next()
            return try ProbeDecoder(value: value, codingPath: path, recorder: recorder).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let (value, path) = try next()
            return ProbeDecoder(value: value, codingPath: path, recorder: recorder)
        }
    }

    struct SingleProbe: SingleValueDecodingContainer {
        let value: Any
        let codingPath: [any CodingKey]
        let recorder: Recorder

        func decodeNil() -> Bool { value is NSNull }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try UnknownFields.decode(type, from: value, codingPath: codingPath, recorder: recorder)
        }
    }
}
