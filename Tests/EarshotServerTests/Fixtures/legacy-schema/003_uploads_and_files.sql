-- A multipart upload in progress (state 'open') or assembled ('completed'). Every row belongs to
-- one partner (tenant); user_id is the partner's user when a user token created it.
CREATE TABLE uploads (
    id         TEXT PRIMARY KEY,
    file_id    TEXT NOT NULL UNIQUE,
    partner_id TEXT NOT NULL REFERENCES partners (id),
    user_id    TEXT,
    filesize   INTEGER NOT NULL CHECK (filesize > 0),
    filetype   TEXT NOT NULL,
    chunk_size INTEGER NOT NULL CHECK (chunk_size > 0),
    part_count INTEGER NOT NULL CHECK (part_count > 0),
    state      TEXT NOT NULL CHECK (state IN ('open', 'completed')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX uploads_partner ON uploads (partner_id, created_at);
CREATE INDEX uploads_state ON uploads (state, created_at);
-- Parts received; the bytes are the blob uploads/<upload id>/part-<5 digits>.
CREATE TABLE upload_parts (
    upload_id   TEXT NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
    part_number INTEGER NOT NULL CHECK (part_number > 0),
    size        INTEGER NOT NULL,
    md5         TEXT NOT NULL,
    uploaded_at INTEGER NOT NULL,
    PRIMARY KEY (upload_id, part_number)
);
-- Assembled files; the bytes are the blob files/<id>.
CREATE TABLE files (
    id         TEXT PRIMARY KEY,
    partner_id TEXT NOT NULL REFERENCES partners (id),
    user_id    TEXT,
    upload_id  TEXT NOT NULL UNIQUE,
    size       INTEGER NOT NULL,
    sha256     TEXT NOT NULL,
    filetype   TEXT NOT NULL,
    blob_key   TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX files_partner ON files (partner_id, user_id, created_at);