-- Instance-wide key/value settings (e.g. the signing-key id in use, the instance id).
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);