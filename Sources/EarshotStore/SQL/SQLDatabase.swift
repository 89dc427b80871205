/// The SQL dialect of a backend: migrations may carry one script per dialect.
public struct SQLDialect: Hashable, Sendable, CustomStringConvertible {
    /// The dialect's name (`sqlite`, `postgresql`).
    public let name: String
    public init(name: String) { self.name = name }

    /// SQLite 3.34 or later.
    public static let sqlite = SQLDialect(name: "sqlite")
    /// PostgreSQL 13 or later.
    public static let postgresql = SQLDialect(name: "postgresql")

    public var description: String { name }
}

/// A database connection lent to a ``MetadataStore/read(_:)`` or ``MetadataStore/write(_:)`` closure.
///
/// Placeholders are `?`, bound in order; a backend whose native syntax differs (PostgreSQL's `$1`) rewrites
/// them. Write portable SQL: `INSERT … RETURNING`, `ON CONFLICT … DO UPDATE`, `CURRENT_TIMESTAMP` work on both
/// SQLite and PostgreSQL; `lastInsertRowid`, `INSERT OR REPLACE` and `AUTOINCREMENT` do not. Booleans are bound
/// as integers: compare them (`CASE WHEN ? = 1 …`) instead of using a parameter as a condition.
///
/// A connection is only valid inside the closure it was passed to and must not escape it. Calls are
/// synchronous and block the store's own thread, never the caller's task. Errors thrown are ``StoreError``s
/// (``StoreError/Code-swift.struct/conflict`` for a constraint violation), plus whatever a row closure throws.
public protocol SQLDatabase {
    /// Which SQL dialect this connection speaks.
    var dialect: SQLDialect { get }

    /// Runs one statement and returns the number of rows it inserted, updated or deleted.
    @discardableResult
    func execute(_ sql: String, _ bindings: [SQLValue]) throws -> Int

    /// Runs one statement and calls `body` for each result row, in order, without collecting them.
    func forEachRow(_ sql: String, _ bindings: [SQLValue], _ body: (SQLRow) throws -> Void) throws

    /// Runs a script of `;`-separated statements without bindings (migrations, fixtures).
    func executeScript(_ sql: String) throws
}

extension SQLDatabase {
    /// Runs one statement with bindings given inline: `try db.execute("DELETE FROM t WHERE id = ?", id)`.
    @discardableResult
    public func execute(_ sql: String, _ bindings: any SQLValueConvertible...) throws -> Int {
        try execute(sql, bindings.map(\.sqlValue))
    }

    /// All result rows of one statement.
    public func query(_ sql: String, _ bindings: [SQLValue]) throws -> [SQLRow] {
        var rows: [SQLRow] = []
        try forEachRow(sql, bindings) { rows.append($0) }
        return rows
    }

    /// All result rows of one statement, bindings given inline.
    public func query(_ sql: String, _ bindings: any SQLValueConvertible...) throws -> [SQLRow] {
        try query(sql, bindings.map(\.sqlValue))
    }

    /// The first result row, or nil when there is none. Add `LIMIT 1` when the query can match many rows.
    public func queryFirst(_ sql: String, _ bindings: any SQLValueConvertible...) throws -> SQLRow? {
        var first: SQLRow?
        try forEachRow(sql, bindings.map(\.sqlValue)) { row in
            if first == nil { first = row }
        }
        return first
    }

    /// The first column of the first row converted to `T`; nil when there is no row.
    public func scalar<T: SQLValueConvertible>(
        _ sql: String, _ bindings: any SQLValueConvertible..., as type: T.Type = T.self
    ) throws -> T? {
        var first: SQLRow?
        try forEachRow(sql, bindings.map(\.sqlValue)) { row in
            if first == nil { first = row }
        }
        return try first?.decode(0, as: type)
    }
}
