import EarshotStore

extension APIKeys {
    /// Long-lived, revocable API keys (only a SHA-256 of each key is stored).
    static let schema = SchemaComponent(
        "api-keys",
        [
            Migration(
                version: 1, name: "api_keys",
                sql: """
                    -- A key belongs to a partner and, when user_id is set, acts as that user. key_hash is the
                    -- SHA-256 (hex) of the whole key; the key itself is shown once and never stored. Times are Unix
                    -- milliseconds; a key with revoked_at set, or past expires_at, is refused.
                    CREATE TABLE api_keys (
                        id           TEXT PRIMARY KEY,
                        partner_id   TEXT NOT NULL REFERENCES partners (id),
                        user_id      TEXT,
                        name         TEXT NOT NULL,
                        scopes       TEXT NOT NULL,
                        key_hash     TEXT NOT NULL UNIQUE,
                        prefix       TEXT NOT NULL,
                        created_at   INTEGER NOT NULL,
                        expires_at   INTEGER,
                        last_used_at INTEGER,
                        revoked_at   INTEGER
                    );
                    CREATE INDEX api_keys_partner ON api_keys (partner_id, created_at);
                    """)
        ])
}
