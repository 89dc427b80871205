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
                """),
        Migration(
            version: 2, name: "partners_and_signing_keys",
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
                """),
        Migration(
            version: 3, name: "uploads_and_files",
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
                """),
        Migration(
            version: 4, name: "jobs",
            sql: """
                -- The durable job queue (see JobQueue). A worker claims a 'queued' job whose run_after has passed by
                -- taking a lease (lease_owner, lease_expires_at) and extends it with heartbeats; an expired lease
                -- puts the job back to 'queued' (or 'failed' once attempts reach max_attempts). Every transition is
                -- conditional on the lease, so a job finishes exactly once. Times are Unix milliseconds.
                CREATE TABLE jobs (
                    id               TEXT PRIMARY KEY,
                    tenant           TEXT NOT NULL,
                    subject          TEXT,
                    kind             TEXT NOT NULL,
                    payload          TEXT NOT NULL,
                    state            TEXT NOT NULL
                                     CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
                    stage            TEXT,
                    progress         REAL NOT NULL DEFAULT 0,
                    attempts         INTEGER NOT NULL DEFAULT 0,
                    max_attempts     INTEGER NOT NULL CHECK (max_attempts > 0),
                    run_after        INTEGER NOT NULL,
                    lease_owner      TEXT,
                    lease_expires_at INTEGER,
                    heartbeat_at     INTEGER,
                    idempotency_key  TEXT,
                    request_hash     TEXT,
                    result           TEXT,
                    error            TEXT,
                    created_at       INTEGER NOT NULL,
                    updated_at       INTEGER NOT NULL,
                    started_at       INTEGER,
                    finished_at      INTEGER,
                    UNIQUE (tenant, kind, idempotency_key)
                );
                CREATE INDEX jobs_due ON jobs (kind, state, run_after);
                CREATE INDEX jobs_lease ON jobs (state, lease_expires_at);
                CREATE INDEX jobs_tenant ON jobs (tenant, kind, created_at, id);
                """),
        Migration(
            version: 5, name: "webhooks",
            sql: """
                -- Per-partner secret that signs webhook bodies (HMAC-SHA256), created on first use.
                ALTER TABLE partners ADD COLUMN webhook_secret TEXT;
                -- One event to deliver to a callback URL ('pending' until a 2xx, 'failed' once the retry period is
                -- over). next_attempt_at doubles as a short lease while an attempt is in flight.
                CREATE TABLE webhook_deliveries (
                    id              TEXT PRIMARY KEY,
                    tenant          TEXT NOT NULL,
                    job_id          TEXT NOT NULL REFERENCES jobs (id),
                    url             TEXT NOT NULL,
                    event           TEXT NOT NULL,
                    body            TEXT NOT NULL,
                    state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
                    attempts        INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at INTEGER NOT NULL,
                    give_up_at      INTEGER NOT NULL,
                    created_at      INTEGER NOT NULL,
                    updated_at      INTEGER NOT NULL
                );
                CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
                CREATE INDEX webhook_deliveries_job ON webhook_deliveries (job_id, created_at);
                -- Every attempt, successful or not.
                CREATE TABLE webhook_attempts (
                    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id),
                    attempt     INTEGER NOT NULL,
                    at          INTEGER NOT NULL,
                    status      INTEGER,
                    error       TEXT,
                    duration_ms INTEGER NOT NULL,
                    PRIMARY KEY (delivery_id, attempt)
                );
                """),
        Migration(
            version: 6, name: "speaker_names_and_voiceprints",
            sql: """
                -- Display names a partner gave to the speakers of a finished transcript: the label diarization
                -- wrote into the result (`Speaker 1`, or an enrolled name) → the name shown in GET and exports.
                CREATE TABLE transcript_speaker_names (
                    job_id     TEXT NOT NULL REFERENCES jobs (id),
                    label      TEXT NOT NULL,
                    name       TEXT NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (job_id, label)
                );
                -- Enrolled speakers of a partner's user: a speaker vector (float32 little-endian) made by `model`
                -- from the dominant voice of an uploaded file. Later recordings of that user name a speaker whose
                -- voice matches one.
                CREATE TABLE voiceprints (
                    id         TEXT PRIMARY KEY,
                    partner_id TEXT NOT NULL REFERENCES partners (id),
                    user_id    TEXT NOT NULL,
                    name       TEXT NOT NULL,
                    model      TEXT NOT NULL,
                    vector     BLOB NOT NULL,
                    speech_ms  INTEGER NOT NULL,
                    file_id    TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    UNIQUE (partner_id, user_id, name)
                );
                """),
        Migration(
            version: 7, name: "records",
            scripts: [
                .sqlite: """
                    -- A recording in a user's library (see docs/records.md). It owns its file (file_id is unique:
                    -- deleting the record deletes the file row and blob). user_id is the partner's user (NULL for a
                    -- partner-owned record). tags and speaker_names are JSON; transcript is the Transcript JSON
                    -- (segments, words, speakers), summary a NoteSummary, translations an object keyed by target
                    -- language. envelope is the quantised AmplitudeEnvelope. Times are Unix milliseconds.
                    CREATE TABLE records (
                        id            TEXT PRIMARY KEY,
                        partner_id    TEXT NOT NULL REFERENCES partners (id),
                        user_id       TEXT,
                        file_id       TEXT NOT NULL UNIQUE,
                        title         TEXT NOT NULL,
                        tags          TEXT NOT NULL DEFAULT '[]',
                        record_time   INTEGER NOT NULL,
                        duration_ms   INTEGER NOT NULL,
                        language      TEXT,
                        source        TEXT NOT NULL,
                        envelope      BLOB,
                        transcript    TEXT,
                        speaker_names TEXT NOT NULL DEFAULT '{}',
                        summary       TEXT,
                        translations  TEXT NOT NULL DEFAULT '{}',
                        created_at    INTEGER NOT NULL,
                        updated_at    INTEGER NOT NULL
                    );
                    CREATE INDEX records_partner_time ON records (partner_id, record_time DESC, id DESC);
                    CREATE INDEX records_user_time ON records (partner_id, user_id, record_time DESC, id DESC);
                    -- Offline tasks run on a record: one row per job (jobs keeps state, result, error: the history).
                    -- The row is written just before its job is enqueued (so the job's final-state hook always finds
                    -- it); source is 'speech' or 'transcript' for translations, model the ASR tier when one applies.
                    CREATE TABLE record_tasks (
                        job_id          TEXT PRIMARY KEY,
                        record_id       TEXT NOT NULL,
                        task_type       INTEGER NOT NULL CHECK (task_type IN (0, 1, 2)),
                        target_language TEXT,
                        source          TEXT,
                        model           TEXT,
                        created_at      INTEGER NOT NULL
                    );
                    CREATE INDEX record_tasks_record ON record_tasks (record_id, created_at);
                    -- Full-text search over titles, tags and transcript sentences: one row per field or sentence.
                    -- The trigram tokenizer finds substrings in any script (Chinese has no spaces) for terms of
                    -- three or more characters (docs/records.md).
                    CREATE VIRTUAL TABLE record_search USING fts5 (
                        body, record_id UNINDEXED, field UNINDEXED, start_ms UNINDEXED, tokenize = 'trigram'
                    );
                    -- The same rows (same rowid) with every Chinese/Japanese character and every pair of adjacent
                    -- ones as tokens, so one- and two-character terms (会, 发布) are single-token lookups.
                    CREATE VIRTUAL TABLE record_search_chars USING fts5 (body, tokenize = 'unicode61');
                    -- Which FTS rows belong to which record (FTS5 cannot index record_id), so a record's rows are
                    -- replaced or deleted without scanning the whole index. search_rowid is the rowid of the row in
                    -- both FTS tables.
                    CREATE TABLE record_search_rows (
                        search_rowid INTEGER PRIMARY KEY,
                        record_id    TEXT NOT NULL
                    );
                    CREATE INDEX record_search_rows_record ON record_search_rows (record_id);
                    """
            ]),
    ]
}
