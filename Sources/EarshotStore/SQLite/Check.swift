internal import CSQLite

#if canImport(Glibc)
    internal import Glibc
#endif

/// A failed SQLite call, kept as ``StoreError/underlying`` for logs.
struct SQLiteFailure: Error, CustomStringConvertible {
    let function: String
    let resultCode: Int32
    let message: String

    var description: String { "\(function) returned \(resultCode): \(message)" }
}

/// Throws a ``StoreError`` unless `result` is `SQLITE_OK`, naming `function` and SQLite's message.
@inline(__always)
func check(_ result: Int32, _ function: StaticString, _ db: OpaquePointer?, sql: String? = nil) throws(StoreError) {
    guard result == SQLITE_OK else { throw sqliteError(result, function, db, sql: sql) }
}

/// The ``StoreError`` for a failed SQLite call: the code follows the primary result code.
func sqliteError(_ result: Int32, _ function: StaticString, _ db: OpaquePointer?, sql: String? = nil) -> StoreError {
    let detail: String
    if let db, let text = sqlite3_errmsg(db) {
        detail = String(cString: text)
    } else {
        detail = String(cString: sqlite3_errstr(result))
    }
    let failure = SQLiteFailure(function: "\(function)", resultCode: result, message: detail)
    let code: StoreError.Code
    switch result & 0xFF {
    case SQLITE_CONSTRAINT: code = .conflict
    case SQLITE_BUSY, SQLITE_LOCKED: code = .unavailable
    case SQLITE_CORRUPT, SQLITE_NOTADB: code = .corrupted
    case SQLITE_FULL: code = .diskFull
    // Some write paths report ENOSPC as an I/O error: the OS error tells.
    case SQLITE_IOERR where db.map { [ENOSPC, EDQUOT].contains(sqlite3_system_errno($0)) } == true: code = .diskFull
    case SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM, SQLITE_NOLFS: code = .io
    default: code = .database
    }
    var message = "\(function): \(detail)"
    if let sql {
        let flat = sql.split(whereSeparator: \.isNewline).map { $0.trimmingPrefix(while: \.isWhitespace) }
            .joined(separator: " ")
        message += " [SQL: \(flat.count > 200 ? String(flat.prefix(200)) + "…" : flat)]"
    }
    return StoreError(code, message, underlying: failure)
}
