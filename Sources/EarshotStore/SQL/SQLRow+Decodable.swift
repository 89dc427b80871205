/// Decoding a whole row into a `Decodable` type, one property per column (by name).
///
/// Supported property types are those of ``SQLValueConvertible`` (`Int`, `Int64`, `Double`, `Bool`, `String`,
/// `[UInt8]`) and their optionals, plus any `RawRepresentable` enum over them; a missing column decodes an
/// optional property as nil. Use `CodingKeys` to map snake_case columns:
///
/// ```swift
/// struct Upload: Decodable { let id: String; let sizeBytes: Int64
///     enum CodingKeys: String, CodingKey { case id, sizeBytes = "size_bytes" } }
/// let uploads = try db.query("SELECT id, size_bytes FROM uploads").map { try $0.decode(Upload.self) }
/// ```
extension SQLRow {
    /// Decodes the row into `type`. Throws ``StoreError/Code-swift.struct/database`` naming the column on a
    /// missing column or a type mismatch.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try T(from: RowDecoder(row: self))
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.database, "cannot decode \(T.self) from row \(self): \(error)", underlying: error)
        }
    }
}

private struct RowDecoder: Decoder {
    let row: SQLRow
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowContainer<Key>(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw StoreError(.database, "a row decodes into a keyed type (a struct), not an array")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw StoreError(.database, "a row decodes into a keyed type (a struct), not a single value")
    }
}

private struct RowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: SQLRow
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { row.columns.names.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { row[key.stringValue] != nil }

    func decodeNil(forKey key: Key) throws -> Bool { row[key.stringValue]?.isNull ?? true }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let value = row[key.stringValue] else {
            throw StoreError(.database, "result has no column \"\(key.stringValue)\" for \(T.self)")
        }
        if let convertible = T.self as? any SQLValueConvertible.Type {
            guard let decoded = convertible.init(sqlValue: value) else {
                throw StoreError(.database, "column \"\(key.stringValue)\" holds \(value), which is not a \(T.self)")
            }
            return decoded as! T
        }
        // RawRepresentable enums and other single-value types decode through a one-value decoder.
        return try T(from: ValueDecoder(value: value, column: key.stringValue))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw StoreError(.database, "column \"\(key.stringValue)\": nested types cannot be decoded from a row")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw StoreError(.database, "column \"\(key.stringValue)\": arrays cannot be decoded from a row")
    }

    func superDecoder() throws -> any Decoder { RowDecoder(row: row) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: row) }
}

/// Decodes one column value (for `RawRepresentable` enums and wrappers).
private struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: SQLValue
    let column: String
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw StoreError(.database, "column \"\(column)\": nested types cannot be decoded from a row")
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw StoreError(.database, "column \"\(column)\": arrays cannot be decoded from a row")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value.isNull }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertible = T.self as? any SQLValueConvertible.Type {
            guard let decoded = convertible.init(sqlValue: value) else {
                throw StoreError(.database, "column \"\(column)\" holds \(value), which is not a \(T.self)")
            }
            return decoded as! T
        }
        return try T(from: self)
    }
}
