internal import CSQLite

/// One `sqlite3*` handle with its prepared-statement cache.
///
/// Not thread-safe: a connection is owned by exactly one ``SQLiteWorker`` and only touched on its queue.
final class SQLiteConnection: SQLDatabase {
    private var handle: OpaquePointer?
    private var cache: [String: CachedStatement] = [:]
    private var cacheOrder: [String] = []
    private let cacheCapacity: Int

    var dialect: SQLDialect { .sqlite }

    /// Opens `path` (`:memory:` for a private in-memory database) with extended result codes, the busy timeout,
    /// foreign keys and the defensive flags set.
    init(path: String, readOnly: Bool, busyTimeout: Duration, cacheCapacity: Int) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let opened = sqlite3_open_v2(path, &db, flags, nil)
        guard opened == SQLITE_OK, let db else {
            let error = sqliteError(opened, "sqlite3_open_v2", db)
            sqlite3_close_v2(db)
            throw StoreError(error.code, "cannot open SQLite database at \(path): \(error.message)", underlying: error)
        }
        self.handle = db
        self.cacheCapacity = cacheCapacity
        do {
            try check(sqlite3_extended_result_codes(db, 1), "sqlite3_extended_result_codes", db)
            try check(sqlite3_busy_timeout(db, Int32(clamping: busyTimeout.milliseconds)), "sqlite3_busy_timeout", db)
            try check(earshot_sqlite_set_defensive(db, 1), "sqlite3_db_config(DEFENSIVE)", db)
            try check(earshot_sqlite_disable_double_quoted_strings(db), "sqlite3_db_config(DQS)", db)
            try executeScript("PRAGMA foreign_keys = ON;")
            if readOnly { try executeScript("PRAGMA query_only = ON;") }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Finalizes cached statements and closes the handle. Idempotent.
    func close() {
        for entry in cache.values { sqlite3_finalize(entry.statement) }
        cache.removeAll()
        cacheOrder.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    private func db() throws(StoreError) -> OpaquePointer {
        guard let handle else { throw StoreError(.closed, "the SQLite connection is closed") }
        return handle
    }

    /// True when no transaction is open (SQLite's autocommit mode).
    var isAutocommit: Bool {
        guard let handle else { return true }
        return sqlite3_get_autocommit(handle) != 0
    }

    // MARK: SQLDatabase

    @discardableResult
    func execute(_ sql: String, _ bindings: [SQLValue]) throws -> Int {
        let db = try db()
        return try withStatement(sql, bindings) { statement, _ in
            while true {
                let rc = sqlite3_step(statement)
                if rc == SQLITE_DONE { break }
                if rc != SQLITE_ROW { throw sqliteError(rc, "sqlite3_step", db, sql: sql) }
            }
            // sqlite3_changes keeps the count of the last INSERT/UPDATE/DELETE; other statements changed nothing.
            return sqlite3_stmt_readonly(statement) != 0 ? 0 : Int(sqlite3_changes64(db))
        }
    }

    func forEachRow(_ sql: String, _ bindings: [SQLValue], _ body: (SQLRow) throws -> Void) throws {
        let db = try db()
        try withStatement(sql, bindings) { statement, entry in
            let columns = Self.columns(of: statement, cachedIn: entry)
            let count = columns.names.count
            while true {
                let rc = sqlite3_step(statement)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw sqliteError(rc, "sqlite3_step", db, sql: sql) }
                var values: [SQLValue] = []
                values.reserveCapacity(count)
                for column in 0..<Int32(count) { values.append(Self.value(statement, column)) }
                try body(SQLRow(columns: columns, values: values))
            }
        }
    }

    func executeScript(_ sql: String) throws {
        let db = try db()
        try sql.withCString { start in
            var cursor: UnsafePointer<CChar>? = start
            while let current = cursor, current.pointee != 0 {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                try check(sqlite3_prepare_v2(db, current, -1, &statement, &tail), "sqlite3_prepare_v2", db, sql: sql)
                cursor = tail
                guard let statement else { continue }  // whitespace or a comment
                defer { sqlite3_finalize(statement) }
                while true {
                    let rc = sqlite3_step(statement)
                    if rc == SQLITE_DONE { break }
                    if rc != SQLITE_ROW { throw sqliteError(rc, "sqlite3_step", db, sql: sql) }
                }
            }
        }
    }

    // MARK: Statements

    private final class CachedStatement {
        let statement: OpaquePointer
        var inUse = false
        /// The result columns, named once rather than for every query (a dictionary built per query was a twentieth
        /// of a task-status GET's CPU), and SQLite's re-prepare count when they were read.
        var columns: (SQLColumns, reprepared: Int32)?
        init(_ statement: OpaquePointer) { self.statement = statement }
    }

    /// The result columns of `statement`: kept with a cached statement until SQLite re-prepares it (a schema change,
    /// after which a `SELECT *` may have other columns).
    private static func columns(of statement: OpaquePointer, cachedIn entry: CachedStatement?) -> SQLColumns {
        let reprepared = sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_REPREPARE, 0)
        if let (columns, count) = entry?.columns, count == reprepared { return columns }
        let count = Int(sqlite3_column_count(statement))
        let columns = SQLColumns((0..<count).map { String(cString: sqlite3_column_name(statement, Int32($0))) })
        entry?.columns = (columns, reprepared)
        return columns
    }

    /// Prepares (or reuses) `sql`, binds, runs `body`, then resets the statement for reuse.
    private func withStatement<R>(
        _ sql: String, _ bindings: [SQLValue], _ body: (OpaquePointer, CachedStatement?) throws -> R
    ) throws -> R {
        let db = try db()
        let entry: CachedStatement?
        let statement: OpaquePointer
        if let cached = cache[sql], !cached.inUse {
            entry = cached
            statement = cached.statement
        } else {
            var prepared: OpaquePointer?
            try check(
                sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil),
                "sqlite3_prepare_v3",
                db, sql: sql)
            guard let prepared else { throw StoreError(.invalidArgument, "empty SQL statement: \"\(sql)\"") }
            statement = prepared
            // A statement already running (a nested query of the same SQL) gets a private, uncached copy.
            entry = cache[sql] == nil ? remember(sql, prepared) : nil
        }
        entry?.inUse = true
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            if let entry { entry.inUse = false } else { sqlite3_finalize(statement) }
        }
        try bind(bindings, to: statement, db: db, sql: sql)
        return try body(statement, entry)
    }

    private func remember(_ sql: String, _ statement: OpaquePointer) -> CachedStatement? {
        guard cacheCapacity > 0 else { return nil }
        if cache.count >= cacheCapacity, let index = cacheOrder.firstIndex(where: { cache[$0]?.inUse == false }) {
            let evicted = cacheOrder.remove(at: index)
            if let old = cache.removeValue(forKey: evicted) { sqlite3_finalize(old.statement) }
        }
        guard cache.count < cacheCapacity else { return nil }
        let entry = CachedStatement(statement)
        cache[sql] = entry
        cacheOrder.append(sql)
        return entry
    }

    private func bind(_ bindings: [SQLValue], to statement: OpaquePointer, db: OpaquePointer, sql: String)
        throws(StoreError)
    {
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard expected == bindings.count else {
            throw StoreError(
                .invalidArgument,
                "statement has \(expected) placeholders but \(bindings.count) values were bound: \(sql)")
        }
        for (offset, value) in bindings.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null:
                rc = sqlite3_bind_null(statement, index)
            case .integer(let int):
                rc = sqlite3_bind_int64(statement, index, int)
            case .real(let double):
                rc = sqlite3_bind_double(statement, index, double)
            case .text(let text):
                var text = text
                rc = text.withUTF8 { utf8 in
                    utf8.withMemoryRebound(to: CChar.self) { chars in
                        // A non-nil pointer even for "" so SQLite binds an empty string, not NULL.
                        guard let base = chars.baseAddress else {
                            return earshot_sqlite_bind_text(statement, index, "", 0)
                        }
                        return earshot_sqlite_bind_text(statement, index, base, Int32(clamping: chars.count))
                    }
                }
            case .blob(let bytes):
                rc = bytes.withUnsafeBytes { raw in
                    if raw.isEmpty { return sqlite3_bind_zeroblob(statement, index, 0) }
                    return earshot_sqlite_bind_blob(statement, index, raw.baseAddress, sqlite3_uint64(raw.count))
                }
            }
            try check(rc, "sqlite3_bind", db, sql: sql)
        }
    }

    private static func value(_ statement: OpaquePointer, _ column: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }
}
