-- Partners are tenants. `id` doubles as the OAuth client_id; the secret is kept only as a salted
-- PBKDF2-HMAC-SHA256 hash ("pbkdf2-sha256$<iterations>$<salt b64url>$<hash b64url>").
CREATE TABLE partners (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
    created_at  INTEGER NOT NULL
);
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