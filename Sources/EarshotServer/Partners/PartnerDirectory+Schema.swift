import EarshotStore

extension PartnerDirectory {
    /// The partners (tenants) table.
    static let schema = SchemaComponent(
        "partners",
        [
            Migration(
                version: 1, name: "partners",
                sql: """
                    -- Partners are tenants. `id` doubles as the OAuth client_id; the secret is kept only as a salted
                    -- PBKDF2-HMAC-SHA256 hash ("pbkdf2-sha256$<iterations>$<salt b64url>$<hash b64url>").
                    CREATE TABLE partners (
                        id          TEXT PRIMARY KEY,
                        name        TEXT NOT NULL,
                        secret_hash TEXT NOT NULL,
                        status      TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
                        created_at  INTEGER NOT NULL
                    );
                    """,
                postgresql: """
                    CREATE TABLE partners (
                        id          TEXT PRIMARY KEY,
                        name        TEXT NOT NULL,
                        secret_hash TEXT NOT NULL,
                        status      TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
                        created_at  BIGINT NOT NULL
                    );
                    """,
                legacy: .init(
                    version: 2, name: "partners_and_signing_keys",
                    checksum: "da179c562e0b46a355abd456e73df3fd82a19a05776308080ac35f8fd8bfc796"))
        ])
}
