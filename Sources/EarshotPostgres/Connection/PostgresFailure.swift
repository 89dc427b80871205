internal import CLibPQ
internal import EarshotStore
internal import Foundation

/// A failed libpq call or statement, kept as ``StoreError/underlying`` for logs and for retry decisions.
struct PostgresFailure: Error, CustomStringConvertible {
    /// The libpq function that failed.
    let function: String
    /// The five-character SQLSTATE, or nil when the server sent none (the connection failed).
    let sqlState: String?
    let message: String

    var description: String { "\(function) failed" + (sqlState.map { " (SQLSTATE \($0))" } ?? "") + ": \(message)" }

    /// A conflict with a concurrent transaction that running the transaction again resolves.
    var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }
}

extension StoreError {
    /// The PostgreSQL failure behind this error, if any.
    var postgresFailure: PostgresFailure? { underlying as? PostgresFailure }

    /// True when the transaction failed only because it conflicted with a concurrent one.
    var isSerializationFailure: Bool { postgresFailure?.isSerializationFailure ?? false }
}

/// The ``StoreError`` for a failed statement: the code follows the SQLSTATE class.
func postgresError(_ function: StaticString, result: OpaquePointer?, connection: OpaquePointer?, sql: String? = nil)
    -> StoreError
{
    var sqlState: String?
    var text = ""
    if let result {
        if let field = PQresultErrorField(result, earshot_pq_diag_sqlstate()) { sqlState = String(cString: field) }
        if let field = PQresultErrorMessage(result) { text = String(cString: field) }
    }
    if text.isEmpty, let connection, let field = PQerrorMessage(connection) { text = String(cString: field) }
    text = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if text.isEmpty { text = "no error message (out of memory?)" }
    let failure = PostgresFailure(function: "\(function)", sqlState: sqlState, message: text)
    let code: StoreError.Code
    switch sqlState {
    case let state? where state.hasPrefix("23"): code = .conflict
    case "40001", "40P01": code = .unavailable
    case let state? where state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57"): code = .unavailable
    case let state? where state.hasPrefix("28"): code = .unavailable
    case nil: code = .unavailable  // no SQLSTATE: the connection itself failed
    default: code = .database
    }
    var message = "\(function): \(text)"
    if let sql {
        let flat = sql.split(whereSeparator: \.isNewline).map { $0.trimmingPrefix(while: \.isWhitespace) }
            .joined(separator: " ")
        message += " [SQL: \(flat.count > 200 ? String(flat.prefix(200)) + "…" : flat)]"
    }
    return StoreError(code, message, underlying: failure)
}
