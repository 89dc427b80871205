#ifndef EARSHOT_CSQLITE_SHIM_H
#define EARSHOT_CSQLITE_SHIM_H
// SQLite 3 (Debian libsqlite3-dev ≥ 3.34: FTS5 with the trigram tokenizer, JSON1, RETURNING).
// Imported only by EarshotStore (`internal import CSQLite`).
#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a macro casting -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type earshot_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// `sqlite3_bind_text` with SQLite copying the bytes (the Swift buffer is only valid during the call).
static inline int earshot_sqlite_bind_text(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

/// `sqlite3_bind_blob64` with SQLite copying the bytes.
static inline int earshot_sqlite_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, sqlite3_uint64 length) {
    return sqlite3_bind_blob64(stmt, index, bytes, length, SQLITE_TRANSIENT);
}

/// `sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, NULL)`: sqlite3_db_config is variadic.
static inline int earshot_sqlite_set_defensive(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, (int *)0);
}

/// `sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML/DDL, 0, NULL)`: reject "double-quoted" string literals,
/// a legacy misfeature that turns a misspelt column name into a string silently.
static inline int earshot_sqlite_disable_double_quoted_strings(sqlite3 *db) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
}

#endif
