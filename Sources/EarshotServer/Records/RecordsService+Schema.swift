import EarshotStore

extension RecordsService {
    /// The library: records, the link of each job to its record (`record_tasks`), and the search index.
    static let schema = SchemaComponent(
        "records",
        [
            Migration(
                version: 1, name: "records",
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
                        """,
                    .postgresql: """
                        -- See the SQLite script. PostgreSQL has no FTS5: search rows live in record_search with the
                        -- text lower-cased in `folded`, under a pg_trgm GIN index that answers `folded LIKE '%term%'`
                        -- for terms of three or more characters in any script (the database must be UTF-8 with a non-C
                        -- LC_CTYPE, e.g. C.UTF-8, so that CJK characters form trigrams); shorter terms are checked by
                        -- the same LIKE on the tenant's rows (docs/records.md, docs/scale-out.md).
                        CREATE EXTENSION IF NOT EXISTS pg_trgm;
                        CREATE TABLE records (
                            id            TEXT PRIMARY KEY,
                            partner_id    TEXT NOT NULL REFERENCES partners (id),
                            user_id       TEXT,
                            file_id       TEXT NOT NULL UNIQUE,
                            title         TEXT NOT NULL,
                            tags          TEXT NOT NULL DEFAULT '[]',
                            record_time   BIGINT NOT NULL,
                            duration_ms   BIGINT NOT NULL,
                            language      TEXT,
                            source        TEXT NOT NULL,
                            envelope      BYTEA,
                            transcript    TEXT,
                            speaker_names TEXT NOT NULL DEFAULT '{}',
                            summary       TEXT,
                            translations  TEXT NOT NULL DEFAULT '{}',
                            created_at    BIGINT NOT NULL,
                            updated_at    BIGINT NOT NULL
                        );
                        CREATE INDEX records_partner_time ON records (partner_id, record_time DESC, id DESC);
                        CREATE INDEX records_user_time ON records (partner_id, user_id, record_time DESC, id DESC);
                        CREATE TABLE record_tasks (
                            job_id          TEXT PRIMARY KEY,
                            record_id       TEXT NOT NULL,
                            task_type       INTEGER NOT NULL CHECK (task_type IN (0, 1, 2)),
                            target_language TEXT,
                            source          TEXT,
                            model           TEXT,
                            created_at      BIGINT NOT NULL
                        );
                        CREATE INDEX record_tasks_record ON record_tasks (record_id, created_at);
                        CREATE TABLE record_search (
                            search_rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                            record_id    TEXT NOT NULL,
                            field        TEXT NOT NULL,
                            start_ms     BIGINT,
                            body         TEXT NOT NULL,
                            folded       TEXT NOT NULL
                        );
                        CREATE INDEX record_search_record ON record_search (record_id);
                        CREATE INDEX record_search_folded ON record_search USING gin (folded gin_trgm_ops);
                        """,
                ],
                legacy: .init(
                    version: 7, name: "records",
                    checksum: "71fdd7e362a36dd1302d47d351648abd957e7fee28e80e5e03cef001027ae83f"))
        ])
}
