/// The metadata store's own tables: the schema component every Earshot database starts with.
///
/// Features declare their own components next to their code (``JobQueue/schema`` for the job queue; the server's
/// partners, uploads, records… in their folders) and the server lists them in dependency order. Append new
/// migrations at the end of a component with the next version; never edit or remove a shipped one (see
/// ``Migration``). Keep SQL portable (SQLite and PostgreSQL) or give one script per dialect.
public enum StoreSchema {
    /// Instance-wide settings (`settings`).
    public static let settings = SchemaComponent(
        "store",
        [
            Migration(
                version: 1, name: "settings",
                sql: """
                    -- Instance-wide key/value settings (e.g. the signing-key id in use, the instance id).
                    CREATE TABLE settings (
                        key        TEXT PRIMARY KEY,
                        value      TEXT NOT NULL,
                        updated_at TEXT NOT NULL
                    );
                    """,
                legacy: .init(
                    version: 1, name: "settings",
                    checksum: "803081a25717b500c7e71fb7b1664d39b8009d6ba7416427e8eb0a386da017de"))
        ])

    /// The components this module owns, in order: what a store opened without a server schema gets.
    public static let components = [settings, JobQueue.schema]
}
