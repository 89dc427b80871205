internal import CLibPQ
internal import EarshotStore
internal import Foundation

/// One libpq connection (`PGconn`) with its cache of prepared statements.
///
/// Not thread-safe: a connection is owned by exactly one ``PostgresWorker`` and only touched on its queue.
///
/// Statements use the extended protocol. Integers are sent as `bigint` and reals as `double precision`; texts and
/// NULLs as text of unknown type, so PostgreSQL infers their type from where they stand (a JSON function, a
/// `bigint` column) the way SQLite's dynamic typing does. A parameter whose type nothing determines (`? IS NULL`)
/// is declared `text` and the statement prepared again. Blobs are sent in binary as `bytea`. Booleans are
/// integers: compare them (`? = 1`) rather than using them as conditions. Results are read as text and
/// converted by column type: integers, floating point and `numeric`, booleans (as 0/1), `bytea`, and text for
/// everything else.
final class PostgresConnection: SQLDatabase {
    private var handle: OpaquePointer?
    private var statements: [String: Statement] = [:]
    private var statementCounter = 0
    private let parameters: ConnectionParameters
    let statementCacheCapacity: Int

    private struct Statement {
        let name: String
        let count: Int
    }

    var dialect: SQLDialect { .postgresql }

    init(_ parameters: ConnectionParameters, statementCacheCapacity: Int = 256) throws(StoreError) {
        self.parameters = parameters
        self.statementCacheCapacity = statementCacheCapacity
        try connect()
    }

    deinit { close() }

    /// Closes the connection. Idempotent.
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        statements.removeAll()
    }

    /// Opens the connection (again): after a failure, prepared statements are gone with the old session.
    func connect() throws(StoreError) {
        close()
        let connection = parameters.withCParameters { keywords, values in PQconnectdbParams(keywords, values, 1) }
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let reason = connection.flatMap { PQerrorMessage($0) }.map { String(cString: $0) } ?? "out of memory"
            if let connection { PQfinish(connection) }
            let failure = PostgresFailure(function: "PQconnectdbParams", sqlState: nil, message: reason)
            throw StoreError(
                .unavailable,
                "cannot connect to PostgreSQL at \(parameters.displayName): "
                    + reason.trimmingCharacters(in: .whitespacesAndNewlines)
                    + " (check the database URL, that the server runs and accepts this host, and the password)",
                underlying: failure)
        }
        handle = connection
        statementCounter = 0
    }

    /// True while the connection is usable; false after the server or the network dropped it.
    var isHealthy: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// True inside a transaction block (also when it failed and awaits a rollback).
    var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// The libpq handle, for the listener's socket wait.
    var rawHandle: OpaquePointer? { handle }

    /// The server's version number (e.g. 150018).
    var serverVersion: Int { handle.map { Int(PQserverVersion($0)) } ?? 0 }

    private func connection() throws(StoreError) -> OpaquePointer {
        guard let handle else { throw StoreError(.unavailable, "the PostgreSQL connection is closed") }
        return handle
    }

    // MARK: SQLDatabase

    @discardableResult
    func execute(_ sql: String, _ bindings: [SQLValue]) throws -> Int {
        let result = try run(sql, bindings)
        defer { PQclear(result) }
        guard let tuples = PQcmdTuples(result), tuples.pointee != 0 else { return 0 }
        return Int(String(cString: tuples)) ?? 0
    }

    func forEachRow(_ sql: String, _ bindings: [SQLValue], _ body: (SQLRow) throws -> Void) throws {
        let result = try run(sql, bindings)
        defer { PQclear(result) }
        let fieldCount = Int(PQnfields(result))
        let columns = SQLColumns((0..<fieldCount).map { String(cString: PQfname(result, Int32($0))) })
        let types = (0..<fieldCount).map { PQftype(result, Int32($0)) }
        let rowCount = Int(PQntuples(result))
        for row in 0..<Int32(rowCount) {
            var values: [SQLValue] = []
            values.reserveCapacity(fieldCount)
            for field in 0..<Int32(fieldCount) {
                values.append(Self.value(result, row: row, field: field, type: types[Int(field)]))
            }
            try body(SQLRow(columns: columns, values: values))
        }
    }

    func executeScript(_ sql: String) throws { try exec(sql) }

    /// Runs `sql` (statements separated by `;`) with the simple query protocol.
    func exec(_ sql: String) throws(StoreError) {
        let connection = try connection()
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY else {
            throw postgresError("PQexec", result: result, connection: connection, sql: sql)
        }
    }

    // MARK: Statements

    /// Prepares (once per connection) and runs `sql` with `bindings`; the caller clears the result.
    private func run(_ sql: String, _ bindings: [SQLValue]) throws(StoreError) -> OpaquePointer {
        let connection = try connection()
        let statement = try prepared(sql, connection, kinds: bindings.map(Self.parameterType))
        guard statement.count == bindings.count else {
            throw StoreError(
                .invalidArgument,
                "statement has \(statement.count) placeholders but \(bindings.count) values were bound: \(sql)")
        }
        // Parameter values as C buffers owned here until the call returns.
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        buffers.reserveCapacity(bindings.count)
        defer { for buffer in buffers { buffer?.deallocate() } }
        for value in bindings {
            switch value {
            case .null:
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
            case .blob(let bytes):
                let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
                bytes.withUnsafeBytes { raw in
                    if let base = raw.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: raw.count) }
                }
                buffers.append(buffer)
                lengths.append(Int32(bytes.count))
                formats.append(1)
            default:
                let text: String
                switch value {
                case .integer(let int): text = String(int)
                case .real(let double): text = double.isFinite ? "\(double)" : (double.isNaN ? "NaN" : (double > 0 ? "Infinity" : "-Infinity"))
                case .text(let string): text = string
                default: text = ""
                }
                let utf8 = Array(text.utf8CString)
                let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
                buffer.initialize(from: utf8, count: utf8.count)
                buffers.append(buffer)
                lengths.append(Int32(utf8.count - 1))
                formats.append(0)
            }
        }
        let result = buffers.withUnsafeBufferPointer { values in
            values.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                PQexecPrepared(
                    connection, statement.name, Int32(bindings.count), values.baseAddress, lengths, formats, 0)
            }
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK, let result else {
            let error = postgresError("PQexecPrepared", result: result, connection: connection, sql: sql)
            PQclear(result)
            if error.postgresFailure?.sqlState == "0A000" || error.postgresFailure?.sqlState == "26000" {
                // "cached plan must not change result type" (a migration changed a table): prepare again next time.
                statements = statements.filter { !$0.key.hasPrefix(sql + "\u{0}") }
            }
            throw error
        }
        return result
    }

    /// The prepared statement for `sql`, preparing it on first use.
    ///
    /// Every parameter starts as type `unknown`; when PostgreSQL cannot infer one (`$1 IS NULL`), that parameter
    /// is declared `text` and the statement prepared again. Inside a transaction a failed prepare would abort it,
    /// so the attempts run under a savepoint.
    private func prepared(_ sql: String, _ connection: OpaquePointer, kinds: [Oid]) throws(StoreError) -> Statement {
        let cacheKey = sql + "\u{0}" + kinds.map { String($0) }.joined(separator: ",")
        if let statement = statements[cacheKey] { return statement }
        if statements.count >= statementCacheCapacity {
            try exec("DEALLOCATE ALL")
            statements.removeAll()
        }
        let (text, count) = Placeholders.rewrite(sql)
        var types = kinds.count == count ? kinds : [Oid](repeating: 0, count: count)
        let guarded = isInTransaction
        if guarded { try exec("SAVEPOINT earshot_prepare") }
        while true {
            statementCounter += 1
            let name = "earshot_\(statementCounter)"
            let result = PQprepare(connection, name, text, Int32(count), types)
            defer { PQclear(result) }
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                if guarded { try exec("RELEASE SAVEPOINT earshot_prepare") }
                let statement = Statement(name: name, count: count)
                statements[cacheKey] = statement
                return statement
            }
            let error = postgresError("PQprepare", result: result, connection: connection, sql: sql)
            if guarded { try exec("ROLLBACK TO SAVEPOINT earshot_prepare") }
            // 42P18 indeterminate_datatype: "could not determine data type of parameter $N".
            if error.postgresFailure?.sqlState == "42P18", let number = Self.parameterNumber(in: error.message),
                (1...count).contains(number), types[number - 1] == 0
            {
                types[number - 1] = Self.textOID
                continue
            }
            if guarded { try? exec("RELEASE SAVEPOINT earshot_prepare") }
            throw error
        }
    }

    /// The type a binding is declared with: `bigint`, `double precision`, `bytea`, or unknown (inferred).
    private static func parameterType(_ value: SQLValue) -> Oid {
        switch value {
        case .integer: int8OID
        case .real: float8OID
        case .blob: byteaOID
        case .text, .null: 0
        }
    }

    /// N in "… parameter $N …".
    private static func parameterNumber(in message: String) -> Int? {
        guard let dollar = message.range(of: "parameter $") else { return nil }
        return Int(message[dollar.upperBound...].prefix { $0.isNumber })
    }

    // MARK: Values

    static let boolOID: Oid = 16
    static let byteaOID: Oid = 17
    static let int8OID: Oid = 20
    static let int2OID: Oid = 21
    static let int4OID: Oid = 23
    static let textOID: Oid = 25
    static let oidOID: Oid = 26
    static let float4OID: Oid = 700
    static let float8OID: Oid = 701
    static let numericOID: Oid = 1700

    private static func value(_ result: OpaquePointer, row: Int32, field: Int32, type: Oid) -> SQLValue {
        if PQgetisnull(result, row, field) != 0 { return .null }
        let length = Int(PQgetlength(result, row, field))
        guard let pointer = PQgetvalue(result, row, field) else { return .null }
        let text = pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
        switch type {
        case int8OID, int4OID, int2OID, oidOID:
            return Int64(text).map(SQLValue.integer) ?? .text(text)
        case float4OID, float8OID:
            return Double(text).map(SQLValue.real) ?? .text(text)
        case numericOID:
            if let integer = Int64(text) { return .integer(integer) }
            return Double(text).map(SQLValue.real) ?? .text(text)
        case boolOID:
            return .integer(text == "t" ? 1 : 0)
        case byteaOID:
            return .blob(decodeBytea(text))
        default:
            return .text(text)
        }
    }

    /// `\x0a1b…` (the hex output format, PostgreSQL 9.0 and later) → bytes.
    static func decodeBytea(_ text: String) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x") else { return utf8 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((utf8.count - 2) / 2)
        var index = 2
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: 0
            }
        }
        while index + 1 < utf8.count {
            bytes.append(nibble(utf8[index]) << 4 | nibble(utf8[index + 1]))
            index += 2
        }
        return bytes
    }
}

extension PostgresConnection {
    /// Waits up to `milliseconds` for the socket to become readable and returns the payloads of the notifications
    /// that arrived (empty on a timeout). A failure leaves the connection unhealthy (the caller reconnects).
    func receiveNotifications(waitingAtMost milliseconds: Int32) -> [String] {
        guard let handle = rawHandle else { return [] }
        var payloads: [String] = []
        func drain() {
            while let notification = PQnotifies(handle) {
                payloads.append(String(cString: notification.pointee.extra))
                PQfreemem(notification)
            }
        }
        drain()
        if !payloads.isEmpty { return payloads }
        let ready = earshot_pq_wait_readable(handle, milliseconds)
        if ready < 0 || (ready > 0 && PQconsumeInput(handle) == 0) {
            close()
            return []
        }
        drain()
        return payloads
    }
}
