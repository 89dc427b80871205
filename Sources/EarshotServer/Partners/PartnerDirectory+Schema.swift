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
                    checksum: "da179c562e0b46a355abd456e73df3fd82a19a05776308080ac35f8fd8bfc796")),
            Migration(
                version: 2, name: "generations_and_secret_rotation",
                sql: """
                    -- Disabling a partner bumps its generation; tokens and signed URLs carry the generation they were
                    -- issued in and are refused once it changed (re-enabling revives none of them). Rotating the
                    -- secret keeps the old hash verifying until previous_secret_expires_at (Unix ms). Hashes may be
                    -- "sha256$<salt>$<hash>" (generated secrets) besides the PBKDF2 form.
                    ALTER TABLE partners ADD COLUMN generation INTEGER NOT NULL DEFAULT 1;
                    ALTER TABLE partners ADD COLUMN previous_secret_hash TEXT;
                    ALTER TABLE partners ADD COLUMN previous_secret_expires_at INTEGER;
                    """),
            Migration(
                version: 3, name: "secret_overlap_in_milliseconds",
                scripts: [
                    // SQLite's INTEGER holds 64 bits already.
                    .sqlite: "",
                    // PostgreSQL's INTEGER is 32 bits: Unix milliseconds overflowed it, so a rotation failed there.
                    .postgresql: "ALTER TABLE partners ALTER COLUMN previous_secret_expires_at TYPE BIGINT;",
                ]),
        ])
}
