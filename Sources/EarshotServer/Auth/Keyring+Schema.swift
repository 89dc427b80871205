import EarshotStore

extension Keyring {
    /// The signing keys of tokens and signed URLs.
    static let schema = SchemaComponent(
        "signing-keys",
        [
            Migration(
                version: 1, name: "signing_keys",
                sql: """
                    -- HMAC keys for access tokens (purpose 'token', JWT kid) and signed URLs (purpose 'url').
                    -- The newest unretired key of a purpose signs; every key verifies until it is deleted, which
                    -- happens once nothing it signed can still be valid. Times are Unix milliseconds.
                    CREATE TABLE signing_keys (
                        kid        TEXT PRIMARY KEY,
                        purpose    TEXT NOT NULL CHECK (purpose IN ('token', 'url')),
                        secret     BLOB NOT NULL,
                        created_at INTEGER NOT NULL,
                        retired_at INTEGER
                    );
                    CREATE INDEX signing_keys_purpose ON signing_keys (purpose, created_at);
                    """,
                postgresql: """
                    CREATE TABLE signing_keys (
                        kid        TEXT PRIMARY KEY,
                        purpose    TEXT NOT NULL CHECK (purpose IN ('token', 'url')),
                        secret     BYTEA NOT NULL,
                        created_at BIGINT NOT NULL,
                        retired_at BIGINT
                    );
                    CREATE INDEX signing_keys_purpose ON signing_keys (purpose, created_at);
                    """,
                legacy: .init(
                    version: 2, name: "partners_and_signing_keys",
                    checksum: "da179c562e0b46a355abd456e73df3fd82a19a05776308080ac35f8fd8bfc796"))
        ])
}
