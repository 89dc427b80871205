/// Earshot's own schema: the migrations every metadata store applies when it opens.
///
/// Append new migrations at the end with the next version; never edit or remove a shipped one (see
/// ``Migration``). Keep SQL portable (SQLite and PostgreSQL) or give one script per dialect.
public enum StoreSchema {
    /// All migrations, oldest first.
    public static let migrations: [Migration] = [
        Migration(
            version: 1, name: "settings",
            sql: """
                -- Instance-wide key/value settings (e.g. the signing-key id in use, the instance id).
                CREATE TABLE settings (
                    key        TEXT PRIMARY KEY,
                    value      TEXT NOT NULL,
                    updated_at TEXT NOT NULL
                );
                """)
    ]
}
