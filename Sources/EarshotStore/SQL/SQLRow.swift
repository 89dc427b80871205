/// One row of a query result: values by column index or by column name.
///
/// Typed access (`try row.decode("size", as: Int64.self)`) throws a ``StoreError`` naming the column when it
/// is missing or holds another type, so a schema/code mismatch fails loudly instead of reading zeros.
public struct SQLRow: Sendable, CustomStringConvertible {
    /// Column names in result order, shared by every row of one result.
    public let columns: SQLColumns
    /// Values in column order.
    public let values: [SQLValue]

    public init(columns: SQLColumns, values: [SQLValue]) {
        precondition(columns.names.count == values.count, "a row needs one value per column")
        self.columns = columns
        self.values = values
    }

    /// The value at `index` (0-based).
    public subscript(index: Int) -> SQLValue { values[index] }

    /// The value of column `name` (the first with that name), or nil when the result has no such column.
    public subscript(name: String) -> SQLValue? {
        columns.index(of: name).map { values[$0] }
    }

    /// Converts column `name` to `T`.
    public func decode<T: SQLValueConvertible>(_ name: String, as type: T.Type = T.self) throws(StoreError) -> T {
        guard let index = columns.index(of: name) else {
            throw StoreError(
                .database, "result has no column \"\(name)\" (columns: \(columns.names.joined(separator: ", ")))")
        }
        return try decode(index, as: type)
    }

    /// Converts the value at `index` to `T`.
    public func decode<T: SQLValueConvertible>(_ index: Int, as type: T.Type = T.self) throws(StoreError) -> T {
        guard values.indices.contains(index) else {
            throw StoreError(.database, "result has no column #\(index) (\(values.count) columns)")
        }
        guard let value = T(sqlValue: values[index]) else {
            throw StoreError(
                .database, "column \"\(columns.names[index])\" holds \(values[index]), which is not a \(T.self)")
        }
        return value
    }

    public var description: String {
        "(" + zip(columns.names, values).map { "\($0)=\($1)" }.joined(separator: ", ") + ")"
    }
}

/// The column names of a result, with a name → index lookup built once per result.
public final class SQLColumns: Sendable {
    /// Names in result order.
    public let names: [String]
    private let indexByName: [String: Int]

    public init(_ names: [String]) {
        self.names = names
        var map: [String: Int] = [:]
        for (index, name) in names.enumerated() where map[name] == nil { map[name] = index }
        self.indexByName = map
    }

    /// The index of the first column named `name`.
    public func index(of name: String) -> Int? { indexByName[name] }
}
