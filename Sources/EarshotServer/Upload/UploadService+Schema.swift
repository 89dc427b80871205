import EarshotStore

extension UploadService {
    /// Uploads in progress, their parts, and the assembled files.
    static let schema = SchemaComponent(
        "uploads",
        [
            Migration(
                version: 1, name: "uploads_and_files",
                sql: """
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
                    """,
                postgresql: """
                    CREATE TABLE uploads (
                        id         TEXT PRIMARY KEY,
                        file_id    TEXT NOT NULL UNIQUE,
                        partner_id TEXT NOT NULL REFERENCES partners (id),
                        user_id    TEXT,
                        filesize   BIGINT NOT NULL CHECK (filesize > 0),
                        filetype   TEXT NOT NULL,
                        chunk_size BIGINT NOT NULL CHECK (chunk_size > 0),
                        part_count INTEGER NOT NULL CHECK (part_count > 0),
                        state      TEXT NOT NULL CHECK (state IN ('open', 'completed')),
                        created_at BIGINT NOT NULL,
                        updated_at BIGINT NOT NULL
                    );
                    CREATE INDEX uploads_partner ON uploads (partner_id, created_at);
                    CREATE INDEX uploads_state ON uploads (state, created_at);
                    CREATE TABLE upload_parts (
                        upload_id   TEXT NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
                        part_number INTEGER NOT NULL CHECK (part_number > 0),
                        size        BIGINT NOT NULL,
                        md5         TEXT NOT NULL,
                        uploaded_at BIGINT NOT NULL,
                        PRIMARY KEY (upload_id, part_number)
                    );
                    CREATE TABLE files (
                        id         TEXT PRIMARY KEY,
                        partner_id TEXT NOT NULL REFERENCES partners (id),
                        user_id    TEXT,
                        upload_id  TEXT NOT NULL UNIQUE,
                        size       BIGINT NOT NULL,
                        sha256     TEXT NOT NULL,
                        filetype   TEXT NOT NULL,
                        blob_key   TEXT NOT NULL,
                        created_at BIGINT NOT NULL
                    );
                    CREATE INDEX files_partner ON files (partner_id, user_id, created_at);
                    """,
                legacy: .init(
                    version: 3, name: "uploads_and_files",
                    checksum: "d2cfb6118ec4ef04d9b46e2cbd843f2d0be40d05701098bb85c9edfa6ea0b62d")),
            Migration(
                version: 2, name: "file_media_type_and_name",
                sql: """
                    -- What a file is and what its sender called it: the media type (from the declared file type) and
                    -- the original file name when the sender gave one (a presign request's filename, a form's file
                    -- name). The pipeline reads the type, so a stored file needs no extension.
                    ALTER TABLE uploads ADD COLUMN original_name TEXT;
                    ALTER TABLE files ADD COLUMN media_type TEXT;
                    ALTER TABLE files ADD COLUMN original_name TEXT;
                    """,
                revision: "1",
                body: { db in
                    for row in try db.query("SELECT id, filetype FROM files WHERE media_type IS NULL") {
                        try db.execute(
                            "UPDATE files SET media_type = ? WHERE id = ?",
                            FileTypes.contentType(for: try row.decode("filetype", as: String.self)),
                            try row.decode("id", as: String.self))
                    }
                }),
            Migration(
                version: 3, name: "part_running_sha256",
                sql: """
                    -- The SHA-256 state after this part, saved while parts 1..part_number arrived and were digested
                    -- in order (ResumableSHA256's bytes); NULL while an earlier part is missing. Completion resumes
                    -- from the highest state and reads only the parts after it, so it does not re-read the file.
                    ALTER TABLE upload_parts ADD COLUMN running_sha256 BLOB;
                    """,
                postgresql: """
                    ALTER TABLE upload_parts ADD COLUMN running_sha256 BYTEA;
                    """),
            Migration(
                version: 4, name: "direct_store_upload",
                sql: """
                    -- The object store's multipart upload id when the client PUTs its parts straight to the store
                    -- (upload-direct, S3): the parts live there, not in upload_parts, until completion makes them
                    -- the object files/<file_id>. NULL when parts come through the server.
                    ALTER TABLE uploads ADD COLUMN store_upload_id TEXT;
                    """),
        ])
}
